import { describe, expect, it } from 'vitest';
import { Stats } from '../stats/stats.js';
import { ENTRY_OVERHEAD_BYTES, OverLimitCache, reportLocalCache } from './over-limit-cache.js';

describe('OverLimitCache', () => {
  it('knows a key until its window ends', () => {
    const cache = new OverLimitCache(1024);
    cache.add('d_k_v_60', { expiresAtMs: 120_000, nowMs: 61_000 });
    expect(cache.overUntilMs('d_k_v_60', 119_999)).toBe(120_000);
    expect(cache.overUntilMs('other', 61_000)).toBeUndefined();
    expect(cache.overUntilMs('d_k_v_60', 120_000)).toBeUndefined();
  });

  it('takes a key again from the instant its entry expires', () => {
    const cache = new OverLimitCache(1024);
    cache.add('k', { expiresAtMs: 1000, nowMs: 0 });
    cache.add('k', { expiresAtMs: 3000, nowMs: 1000 });
    expect(cache.overUntilMs('k', 2500)).toBe(3000);
    expect(cache.size).toBe(1);
  });

  it('keeps the first expiry of a key added again while known, counting its bytes once', () => {
    const cache = new OverLimitCache(1024);
    cache.add('k', { expiresAtMs: 1000, nowMs: 0 });
    cache.add('k', { expiresAtMs: 3000, nowMs: 500 });
    expect(cache.overUntilMs('k', 600)).toBe(1000);
    expect(cache.estimatedBytes).toBe('k'.length * 2 + ENTRY_OVERHEAD_BYTES);
  });

  it('keeps nothing already expired', () => {
    const cache = new OverLimitCache(1024);
    cache.add('k', { expiresAtMs: 100, nowMs: 100 });
    expect(cache.size).toBe(0);
    expect(cache.counts.expired).toBe(1);
  });

  it('stays within its byte budget, dropping the oldest keys first', () => {
    const entry = 'key-0'.length * 2 + ENTRY_OVERHEAD_BYTES;
    const cache = new OverLimitCache(entry * 3);
    for (let i = 0; i < 5; i++) cache.add(`key-${i}`, { expiresAtMs: 10_000, nowMs: 0 });
    expect(cache.size).toBe(3);
    expect(cache.estimatedBytes).toBe(entry * 3);
    expect([0, 1, 2, 3, 4].map((i) => cache.overUntilMs(`key-${i}`, 1) !== undefined)).toEqual([
      false,
      false,
      true,
      true,
      true,
    ]);
  });

  it('drops expired keys at the old end when adding', () => {
    const cache = new OverLimitCache(10_000);
    cache.add('a', { expiresAtMs: 1000, nowMs: 0 });
    cache.add('b', { expiresAtMs: 1000, nowMs: 0 });
    cache.add('c', { expiresAtMs: 5000, nowMs: 1000 }); // a and b expire at this instant
    expect(cache.size).toBe(1);
  });

  it('keeps an entry as large as the whole budget, and nothing larger, which drops no other', () => {
    const cache = new OverLimitCache('k'.length * 2 + ENTRY_OVERHEAD_BYTES);
    cache.add('k', { expiresAtMs: 1000, nowMs: 0 });
    cache.add('kk', { expiresAtMs: 1000, nowMs: 0 });
    expect(cache.overUntilMs('k', 0)).toBe(1000);
    expect(cache.size).toBe(1);
    expect(cache.counts.evacuated).toBe(0);
  });

  it('stays exact after many keys have been dropped to make room', () => {
    const keyOf = (i: number) => `key-${String(i).padStart(4, '0')}`;
    const entry = keyOf(0).length * 2 + ENTRY_OVERHEAD_BYTES;
    const cache = new OverLimitCache(entry * 2);
    for (let i = 0; i < 1100; i++) cache.add(keyOf(i), { expiresAtMs: 10_000, nowMs: 0 });
    expect(cache.counts).toEqual({ lookups: 0, hits: 0, expired: 0, evacuated: 1098 });
    expect(cache.estimatedBytes).toBe(entry * 2);
    expect([1097, 1098, 1099].map((i) => cache.overUntilMs(keyOf(i), 0))).toEqual([
      undefined,
      10_000,
      10_000,
    ]);
  });

  it('counts lookups, hits, and entries dropped at expiry or to make room', () => {
    const entry = 'key-0'.length * 2 + ENTRY_OVERHEAD_BYTES;
    const cache = new OverLimitCache(entry * 2);
    cache.add('key-0', { expiresAtMs: 100, nowMs: 0 });
    cache.add('key-1', { expiresAtMs: 10_000, nowMs: 0 });
    expect(cache.overUntilMs('key-1', 50)).toBe(10_000);
    expect(cache.overUntilMs('key-9', 50)).toBeUndefined();
    cache.add('key-2', { expiresAtMs: 10_000, nowMs: 200 }); // key-0 has expired: dropped, room enough
    cache.add('key-3', { expiresAtMs: 10_000, nowMs: 200 }); // full: key-1 goes although live
    expect(cache.counts).toEqual({ lookups: 2, hits: 1, expired: 1, evacuated: 1 });
    expect(cache.size).toBe(2);
  });

  it("reports upstream's localcache gauges", () => {
    const cache = new OverLimitCache(1024);
    cache.add('a', { expiresAtMs: 100, nowMs: 0 });
    cache.overUntilMs('a', 50);
    cache.overUntilMs('b', 50);
    cache.overUntilMs('c', 50);
    cache.add('b', { expiresAtMs: 1000, nowMs: 200 });
    const stats = new Stats();
    reportLocalCache(stats, cache);
    expect(Object.fromEntries(stats.gaugeEntries())).toEqual({
      'ratelimit.localcache.lookupCount': 3,
      'ratelimit.localcache.hitCount': 1,
      'ratelimit.localcache.missCount': 2,
      'ratelimit.localcache.entryCount': 1,
      'ratelimit.localcache.expiredCount': 1,
      'ratelimit.localcache.evacuateCount': 0,
    });
  });
});
