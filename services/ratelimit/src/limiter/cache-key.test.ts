import { describe, expect, it } from 'vitest';
import { cacheKey, windowStart } from './cache-key.js';

describe('cache keys', () => {
  it('use upstream format: prefix, domain, key_value pairs, window start', () => {
    expect(cacheKey('domain', [{ key: 'key', value: 'value' }], 1234)).toBe('domain_key_value_1234');
    expect(
      cacheKey(
        'domain',
        [
          { key: 'key2', value: 'value2' },
          { key: 'subkey2', value: 'subvalue2' },
        ],
        1200,
      ),
    ).toBe('domain_key2_value2_subkey2_subvalue2_1200');
    expect(cacheKey('prefix:domain', [{ key: 'key', value: 'value' }], 1234)).toBe(
      'prefix:domain_key_value_1234',
    );
    expect(cacheKey('d', [{ key: 'k', value: '' }], 60)).toBe('d_k__60');
  });

  it('align windows to the epoch', () => {
    expect(windowStart(1234, 1)).toBe(1234);
    expect(windowStart(1259, 60)).toBe(1200);
    expect(windowStart(1_795_348_830, 3600)).toBe(1_795_348_800);
    expect(windowStart(1_795_348_830, 86_400)).toBe(1_795_305_600);
    expect(windowStart(86_399, 86_400)).toBe(0);
  });
});
