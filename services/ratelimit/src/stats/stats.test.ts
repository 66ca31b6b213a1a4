import { describe, expect, it } from 'vitest';
import { Registry } from 'prom-client';
import { Stats } from './stats.js';

describe('Stats.dynamicRule', () => {
  it('keeps at most maxDynamicKeys per-value entries; 100 000 distinct values count in stats_overflow', () => {
    const stats = new Stats({ maxDynamicKeys: 10_000 });
    stats.rule('d', 'static').total_hits.value++;
    for (let i = 0; i < 100_000; i++) stats.dynamicRule('d', `user_${i}`).total_hits.value++;
    const names = [...stats.entries()].map(([name]) => name);
    expect(names.filter((n) => n.endsWith('.total_hits'))).toHaveLength(10_001);
    expect(new Map(stats.entries()).get('ratelimit.service.rate_limit.d.stats_overflow')).toBe(90_000);
  });

  it('still counts a name it already keeps once the cap is reached', () => {
    const stats = new Stats({ maxDynamicKeys: 1 });
    stats.dynamicRule('d', 'a').total_hits.value++;
    stats.dynamicRule('d', 'b').total_hits.value++;
    stats.dynamicRule('d', 'a').total_hits.value++;
    const all = new Map(stats.entries());
    expect(all.get('ratelimit.service.rate_limit.d.a.total_hits')).toBe(2);
    expect(all.has('ratelimit.service.rate_limit.d.b.total_hits')).toBe(false);
    expect(all.get('ratelimit.service.rate_limit.d.stats_overflow')).toBe(1);
  });

  it('bounds domain_not_found entries by the same budget, counting the rest in domain_not_found_overflow', () => {
    const stats = new Stats({ maxDynamicKeys: 3 });
    stats.dynamicRule('d', 'a').total_hits.value++;
    for (let i = 0; i < 10; i++) stats.domainNotFound(`unknown-${i}`).value++;
    stats.domainNotFound('unknown-0').value++;
    const all = new Map(stats.entries());
    expect([...all.keys()].filter((n) => n.endsWith('.domain_not_found'))).toEqual([
      'ratelimit.service.rate_limit.unknown-0.domain_not_found',
      'ratelimit.service.rate_limit.unknown-1.domain_not_found',
    ]);
    expect(all.get('ratelimit.service.rate_limit.unknown-0.domain_not_found')).toBe(2);
    expect(all.get('ratelimit.service.domain_not_found_overflow')).toBe(8);
  });
});

describe('Stats names', () => {
  it('names rules and unknown domains as upstream sanitises them, over the whole <domain>.<descriptor>', () => {
    const stats = new Stats();
    stats.rule('edge_proxy_per_ip', 'remote_address_50.0.0.5').over_limit.value++;
    stats.dynamicRule('edge-1', '2.3.4').total_hits.value++;
    stats.dynamicRule('d', 'k_a:b').total_hits.value++;
    stats.dynamicRule('d', 'k_a|b').total_hits.value++;
    stats.domainNotFound('10.0.0.1:8080').value++;
    const all = new Map(stats.entries());
    expect(all.get('ratelimit.service.rate_limit.edge_proxy_per_ip.remote_address_50_0_0_5.over_limit')).toBe(
      1,
    );
    expect(all.get('ratelimit.service.rate_limit.edge-1_2_3_4.total_hits')).toBe(1);
    expect(all.get('ratelimit.service.rate_limit.d.k_a_b.total_hits')).toBe(2);
    expect(all.get('ratelimit.service.rate_limit.10_0_0_1_8080.domain_not_found')).toBe(1);
    expect([...all.keys()].filter((n) => /[:|]|\d\.\d/.test(n))).toEqual([]);
  });

  it('counts names that sanitise alike once against maxDynamicKeys', () => {
    const stats = new Stats({ maxDynamicKeys: 1 });
    stats.dynamicRule('d', 'ip_10.0.0.1').total_hits.value++;
    stats.dynamicRule('d', 'ip_10_0_0_1').total_hits.value++;
    stats.dynamicRule('d:1', 'other').total_hits.value++;
    const all = new Map(stats.entries());
    expect(all.get('ratelimit.service.rate_limit.d.ip_10_0_0_1.total_hits')).toBe(2);
    expect(all.get('ratelimit.service.rate_limit.d_1.stats_overflow')).toBe(1);
  });

  it('labels the Prometheus series with the sanitised domain and descriptor', async () => {
    const stats = new Stats();
    const registry = new Registry();
    stats.register(registry);
    stats.rule('a:b', 'ip_10.0.0.1|x').total_hits.value++;
    const text = await registry.metrics();
    expect(text).toContain(
      'ratelimit_service_rate_limit_total_hits{domain="a_b",descriptor="ip_10_0_0_1_x"} 1',
    );
  });
});
