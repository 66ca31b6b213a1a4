import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { Stats } from './stats.js';

describe('Stats.taggedCounter', () => {
  it('names a tag set for statsd as upstream does and labels it in Prometheus, before and after registering', async () => {
    const stats = new Stats();
    stats.taggedCounter('ratelimit.memcache.multiget', { code: 'success' }).value += 2;
    const registry = new Registry();
    stats.register(registry);
    stats.taggedCounter('ratelimit.memcache.multiget', { code: 'error' }).value++;
    stats.taggedCounter('ratelimit.memcache.add', { code: 'success' }).value++;
    stats.taggedCounter('ratelimit.memcache.multiget', { code: 'success' }).value++;
    const tagged = [...stats.entries()].filter(([name]) => name.startsWith('ratelimit.memcache.'));
    expect(tagged).toEqual([
      ['ratelimit.memcache.multiget.__code=success', 3],
      ['ratelimit.memcache.multiget.__code=error', 1],
      ['ratelimit.memcache.add.__code=success', 1],
    ]);
    const text = await registry.metrics();
    expect(text).toContain('ratelimit_memcache_multiget{code="success"} 3');
    expect(text).toContain('ratelimit_memcache_multiget{code="error"} 1');
    expect(text).toContain('ratelimit_memcache_add{code="success"} 1');
  });
});
