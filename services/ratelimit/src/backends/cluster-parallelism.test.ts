import { describe, expect, it } from 'vitest';
import { mapWithParallelism } from './cluster-parallelism.js';

/** Calls that finish only when the test says, recording how many were in flight at the most. */
function gatedCalls() {
  const pending: Array<{ item: number; finish: () => void; fail: () => void }> = [];
  let inFlight = 0;
  let most = 0;
  const fn = (item: number) =>
    new Promise<number>((resolve, reject) => {
      most = Math.max(most, ++inFlight);
      pending.push({
        item,
        finish: () => {
          inFlight--;
          resolve(item * 10);
        },
        fail: () => {
          inFlight--;
          reject(new Error(`item ${item} failed`));
        },
      });
    });
  return { fn, pending, most: () => most };
}

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('mapWithParallelism', () => {
  it('runs one call at a time with 1, each after the previous answered, results in order', async () => {
    const g = gatedCalls();
    const all = mapWithParallelism([1, 2, 3], 1, g.fn);
    for (const expected of [1, 2, 3]) {
      expect(g.pending.map((p) => p.item)).toEqual([expected]);
      g.pending.shift()?.finish();
      await settle();
    }
    expect(await all).toEqual([10, 20, 30]);
    expect(g.most()).toBe(1);
  });

  it('keeps 2 in flight with 2, and starts every call at once with 0', async () => {
    const two = gatedCalls();
    const bounded = mapWithParallelism([1, 2, 3, 4], 2, two.fn);
    expect(two.pending.map((p) => p.item)).toEqual([1, 2]);
    two.pending.splice(1, 1)[0]?.finish();
    await settle();
    expect(two.pending.map((p) => p.item)).toEqual([1, 3]);
    while (two.pending.length > 0) {
      two.pending.shift()?.finish();
      await settle();
    }
    expect(await bounded).toEqual([10, 20, 30, 40]);
    expect(two.most()).toBe(2);

    const zero = gatedCalls();
    const unbounded = mapWithParallelism([1, 2, 3, 4], 0, zero.fn);
    expect(zero.pending.map((p) => p.item)).toEqual([1, 2, 3, 4]);
    for (const p of zero.pending.splice(0)) p.finish();
    expect(await unbounded).toEqual([10, 20, 30, 40]);
  });

  it('starts nothing after a failure and rejects with it', async () => {
    const g = gatedCalls();
    const all = mapWithParallelism([1, 2, 3], 1, g.fn);
    g.pending.shift()?.fail();
    await expect(all).rejects.toThrow('item 1 failed');
    await settle();
    expect(g.pending).toEqual([]);
  });
});
