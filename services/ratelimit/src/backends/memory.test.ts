import { afterEach, describe, expect, it, vi } from 'vitest';
import { BackendError } from '../errors.js';
import { createMemoryStore } from './memory.js';
import type { CounterOp } from './types.js';

const T0 = Date.UTC(2026, 0, 1, 12, 0, 0);
const inc = (key: string, ttlSeconds = 60): CounterOp => ({
  kind: 'increment',
  key,
  hits: 1,
  ttlSeconds,
  unitSeconds: 60,
});

describe('memory store bound (MEMORY_MAX_KEYS)', () => {
  it('refuses a run needing new keys past maxKeys as a backend failure, changing nothing, and counts it', async () => {
    let refused = 0;
    const store = createMemoryStore({ now: () => T0, maxKeys: 2, onFull: () => refused++ });
    expect(await store.run([inc('a'), inc('b')])).toEqual([1, 1]);
    const full = store.run([inc('a'), inc('c')]);
    await expect(full).rejects.toBeInstanceOf(BackendError);
    await expect(full).rejects.toThrow(
      'memory: 2 keys held (MEMORY_MAX_KEYS), new keys refused until some expire',
    );
    expect(refused).toBe(1);
    // nothing of the refused run was applied; keys already held keep counting
    expect(await store.run([inc('a'), { kind: 'read', key: 'c', unitSeconds: 60 }])).toEqual([2, 0]);
    expect(store.size()).toBe(2);
    await store.close();
  });

  it('makes room from expired keys first, at once', async () => {
    let t = T0;
    const store = createMemoryStore({ now: () => t, maxKeys: 2 });
    await store.run([inc('a', 1), inc('b', 60)]);
    t += 1_000;
    expect(await store.run([inc('c')])).toEqual([1]);
    expect(store.size()).toBe(2);
    await expect(store.run([inc('d')])).rejects.toBeInstanceOf(BackendError);
    await store.close();
  });

  it('sweeps for room at most once per clock second', async () => {
    let t = T0 + 500;
    const store = createMemoryStore({ now: () => t, maxKeys: 1 });
    await store.run([inc('a', 1)]);
    t = T0 + 1200;
    await expect(store.run([inc('b')])).rejects.toBeInstanceOf(BackendError);
    t = T0 + 1600; // a has expired, but this second's sweep is done
    await expect(store.run([inc('b')])).rejects.toBeInstanceOf(BackendError);
    t = T0 + 2000;
    expect(await store.run([inc('b')])).toEqual([1]);
    await store.close();
  });

  it('sweeps on the first full run whatever the clock reads', async () => {
    const store = createMemoryStore({ now: () => 1500, maxKeys: 1 });
    await store.run([inc('a', 0)]);
    expect(await store.run([inc('b')])).toEqual([1]);
    await store.close();
  });

  it('holds a bucket key until the bucket is full again', async () => {
    let t = T0;
    const store = createMemoryStore({ now: () => t, maxKeys: 1 });
    const take: CounterOp = {
      kind: 'take',
      key: 'bucket',
      unitSeconds: 1,
      nowUs: T0 * 1000,
      costUs: 1_000_000,
      capacityUs: 2_000_000,
    };
    await store.run([take]);
    t = T0 + 999;
    await expect(store.run([inc('a')])).rejects.toBeInstanceOf(BackendError);
    t = T0 + 1000;
    expect(await store.run([inc('a')])).toEqual([1]);
    await store.close();
  });

  it('counts a token-bucket take on an absent key as a new key', async () => {
    const store = createMemoryStore({ now: () => T0, maxKeys: 1 });
    await store.run([inc('a')]);
    const take: CounterOp = {
      kind: 'take',
      key: 'bucket',
      unitSeconds: 1,
      nowUs: T0 * 1000,
      costUs: 1000,
      capacityUs: 10_000,
    };
    await expect(store.run([take])).rejects.toBeInstanceOf(BackendError);
    await store.close();
  });
});

describe('memory store', () => {
  afterEach(() => vi.useRealTimers());

  it('forgets a counter from the instant it expires', async () => {
    let t = T0;
    const store = createMemoryStore({ now: () => t });
    expect(await store.run([inc('a', 1), inc('a', 1)])).toEqual([1, 2]);
    t = T0 + 1000;
    expect(await store.run([{ kind: 'read', key: 'a', unitSeconds: 60 }, inc('a', 1)])).toEqual([0, 1]);
    await store.close();
  });

  it('drops expired keys once a second', async () => {
    vi.useFakeTimers();
    let t = T0;
    const store = createMemoryStore({ now: () => t });
    await store.run([inc('a', 1), inc('b', 60)]);
    t = T0 + 1000;
    vi.advanceTimersByTime(1000);
    expect(store.size()).toBe(1);
    await store.close();
  });

  it('is ready at once, takes from token buckets, and holds nothing once closed', async () => {
    const store = createMemoryStore({ now: () => T0 });
    await expect(store.ready()).resolves.toBeUndefined();
    expect(store.supportsTokenBuckets).toBe(true);
    await store.run([inc('a')]);
    await store.close();
    expect(store.size()).toBe(0);
  });
});
