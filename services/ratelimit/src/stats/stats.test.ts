import { describe, expect, it } from 'vitest';
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
