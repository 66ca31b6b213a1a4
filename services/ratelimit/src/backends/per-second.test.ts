import { describe, expect, it } from 'vitest';
import { createMemoryStore } from './memory.js';
import { splitPerSecond } from './per-second.js';
import type { CounterIncrement, CounterStore } from './types.js';

function recording(store: CounterStore, seen: string[]): CounterStore {
  return { ...store, run: (ops) => (seen.push(...ops.map((o) => o.key)), store.run(ops)) };
}

const op = (key: string, unitSeconds: number, hits = 1): CounterIncrement => ({
  kind: 'increment',
  key,
  hits,
  ttlSeconds: unitSeconds,
  unitSeconds,
});

describe('splitPerSecond', () => {
  it('sends per-second increments to the second store and the rest to the first, values in order', async () => {
    const mainKeys: string[] = [];
    const secondKeys: string[] = [];
    const store = splitPerSecond(
      recording(createMemoryStore(), mainKeys),
      recording(createMemoryStore(), secondKeys),
    );
    await store.run([op('m', 60, 5)]);
    const values = await store.run([op('s', 1, 2), op('m', 60), op('h', 3600, 7), op('s', 1)]);
    expect(values).toEqual([2, 6, 7, 3]);
    expect(mainKeys).toEqual(['m', 'm', 'h']);
    expect(secondKeys).toEqual(['s', 's']);
    await store.close();
  });

  it('skips a store with nothing to count', async () => {
    const second = createMemoryStore();
    let secondRuns = 0;
    const store = splitPerSecond(createMemoryStore(), {
      ...second,
      run: (ops) => (secondRuns++, second.run(ops)),
    });
    await store.run([op('m', 60)]);
    expect(secondRuns).toBe(0);
    await store.close();
  });

  it('takes from token buckets only when both stores do', () => {
    const memory = createMemoryStore();
    const noBuckets = { ...memory, supportsTokenBuckets: false };
    expect(splitPerSecond(memory, memory).supportsTokenBuckets).toBe(true);
    expect(splitPerSecond(memory, noBuckets).supportsTokenBuckets).toBe(false);
    expect(splitPerSecond(noBuckets, memory).supportsTokenBuckets).toBe(false);
  });

  it('is ready when both stores are, and closes both', async () => {
    const main = createMemoryStore();
    const perSecond = createMemoryStore();
    const unreachable = { ...perSecond, ready: () => Promise.reject(new Error('no per-second store')) };
    await expect(splitPerSecond(main, unreachable).ready()).rejects.toThrow('no per-second store');
    const store = splitPerSecond(main, perSecond);
    await store.run([op('m', 60), op('s', 1)]);
    await store.close();
    expect([main.size(), perSecond.size()]).toEqual([0, 0]);
  });
});
