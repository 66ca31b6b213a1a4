import { describe, expect, it } from 'vitest';
import { createExpiringCache } from './expiring-cache.js';

function setUp(maxEntries: number) {
  let t = 1_000_000;
  const cache = createExpiringCache<string>({ maxEntries, now: () => t });
  return { cache, at: () => t, advance: (ms: number) => (t += ms) };
}

describe('verified-token cache (injected clock)', () => {
  it('keeps an entry until its expiry, not a moment longer', () => {
    const { cache, at, advance } = setUp(10);
    cache.set('a', 'A', at() + 1000);
    expect(cache.get('a')).toBe('A');
    advance(999);
    expect(cache.get('a')).toBe('A');
    advance(1);
    expect(cache.get('a')).toBeUndefined();
    cache.set('b', 'B', at());
    expect(cache.get('b')).toBeUndefined();
    expect(cache.stats()).toEqual({ hits: 2, misses: 2, evictions: 0 });
  });

  it('holds at most maxEntries, dropping the least recently used', () => {
    const { cache, at } = setUp(2);
    cache.set('a', 'A', at() + 1000);
    cache.set('b', 'B', at() + 1000);
    expect(cache.get('a')).toBe('A');
    cache.set('c', 'C', at() + 1000);
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).toEqual(['A', undefined, 'C']);
    expect(cache.stats().evictions).toBe(1);
  });

  it('keeps nothing at size 0', () => {
    const { cache, at } = setUp(0);
    cache.set('a', 'A', at() + 1000);
    expect(cache.get('a')).toBeUndefined();
  });
});
