import { describe, expect, it } from 'vitest';
import { ENTRY_OVERHEAD_BYTES, OverLimitCache } from './over-limit-cache.js';

describe('OverLimitCache', () => {
  it('knows a key until its window ends', () => {
    const cache = new OverLimitCache(1024);
    cache.add('d_k_v_60', { expiresAtMs: 120_000, nowMs: 61_000 });
    expect(cache.overUntilMs('d_k_v_60', 119_999)).toBe(120_000);
    expect(cache.overUntilMs('other', 61_000)).toBeUndefined();
    expect(cache.overUntilMs('d_k_v_60', 120_000)).toBeUndefined();
  });

  it('takes a key again once its entry has expired', () => {
    const cache = new OverLimitCache(1024);
    cache.add('k', { expiresAtMs: 1000, nowMs: 0 });
    cache.add('k', { expiresAtMs: 3000, nowMs: 2000 });
    expect(cache.overUntilMs('k', 2500)).toBe(3000);
    expect(cache.size).toBe(1);
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
    cache.add('c', { expiresAtMs: 5000, nowMs: 2000 });
    expect(cache.size).toBe(1);
  });

  it('keeps nothing larger than the whole budget', () => {
    const cache = new OverLimitCache(ENTRY_OVERHEAD_BYTES);
    cache.add('k', { expiresAtMs: 1000, nowMs: 0 });
    expect(cache.size).toBe(0);
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
});
