import { describe, expect, it } from 'vitest';
import { ruleStatName, sanitizeStatName } from './stat-name.js';

describe('sanitizeStatName', () => {
  it.each([
    ['edge_proxy_per_ip.remote_address_50.0.0.5', 'edge_proxy_per_ip.remote_address_50_0_0_5'],
    ['d.addr_10.0.0.1:8080', 'd.addr_10_0_0_1_8080'],
    ['d.k_a.1.2.3.4.b', 'd.k_a.1_2_3_4.b'],
    ['d.k_1.2.3.4.5', 'd.k_1_2_3_4.5'],
    ['d.k_1234.5.6.7', 'd.k_1234_5_6_7'],
    ['d.k_999.888.777.666', 'd.k_999_888_777_666'],
    ['d.k_1.2.3', 'd.k_1.2.3'],
    ['d.k_2001:db8::1', 'd.k_2001_db8__1'],
    ['d.k_::ffff:10.0.0.1', 'd.k___ffff_10_0_0_1'],
    ['d.k_a|b', 'd.k_a_b'],
    ['edge-1.2.3.4', 'edge-1_2_3_4'],
    ['d.k_١.٢.٣.٤', 'd.k_١.٢.٣.٤'],
    ['d.k_line\nbreak', 'd.k_line\nbreak'],
  ])('%j → %j, as upstream', (name, sanitized) => {
    expect(sanitizeStatName(name)).toBe(sanitized);
    expect(sanitizeStatName(name)).toHaveLength(name.length);
  });

  it('cuts a rule name into its domain and descriptor, an address across both staying whole', () => {
    expect(ruleStatName('edge_proxy_per_ip', 'remote_address_50.0.0.5')).toEqual({
      name: 'edge_proxy_per_ip.remote_address_50_0_0_5',
      domain: 'edge_proxy_per_ip',
      descriptor: 'remote_address_50_0_0_5',
    });
    expect(ruleStatName('edge-1.2.3', '4.k_a:b')).toEqual({
      name: 'edge-1_2_3_4.k_a_b',
      domain: 'edge-1.2.3',
      descriptor: '4.k_a_b',
    });
  });
});
