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
});
