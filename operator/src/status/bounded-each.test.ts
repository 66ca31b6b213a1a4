import { describe, expect, it } from 'vitest';
import { forEachBounded } from './bounded-each.js';

describe('forEachBounded', () => {
  it('calls every item once, in order, never more than the limit at a time', async () => {
    let inFlight = 0;
    let most = 0;
    const started: number[] = [];
    await forEachBounded(
      Array.from({ length: 50 }, (_, i) => i),
      4,
      async (i) => {
        started.push(i);
        most = Math.max(most, ++inFlight);
        // calls overlap and end out of order, on microtasks: no timer
        for (let tick = 0; tick < i % 3; tick++) await Promise.resolve();
        inFlight--;
      },
    );
    expect(started).toEqual(Array.from({ length: 50 }, (_, i) => i));
    expect(most).toBe(4);
  });

  it('resolves at once for no items and rejects with an error of a call', async () => {
    await expect(forEachBounded([], 4, () => Promise.reject(new Error('never')))).resolves.toBeUndefined();
    await expect(
      forEachBounded([1, 2, 3], 2, (i) => (i === 2 ? Promise.reject(new Error('two')) : Promise.resolve())),
    ).rejects.toThrow('two');
  });
});
