import { describe, expect, it } from 'vitest';
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
    await expect(store.run([inc('a'), inc('c')])).rejects.toBeInstanceOf(BackendError);
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
