import { describe, expect, it } from 'vitest';
import { batchPerTurnByKey } from './turn-batch.js';

describe('batchPerTurnByKey', () => {
  it('sends the items of one turn in one call per key, and settles each as its call does', async () => {
    const calls: Array<[string, number[]]> = [];
    const add = batchPerTurnByKey<number>((key, items) => {
      calls.push([key, items]);
      return key === 'bad' ? Promise.reject(new Error('refused')) : Promise.resolve();
    });
    const results = await Promise.allSettled([add('a', 1), add('bad', 2), add('a', 3), add('b', 4)]);
    expect(calls).toEqual([
      ['a', [1, 3]],
      ['bad', [2]],
      ['b', [4]],
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
    await add('a', 5);
    expect(calls.at(-1)).toEqual(['a', [5]]);
  });

  it('rejects the callers of a group whose send throws at once', async () => {
    const add = batchPerTurnByKey<number>(() => {
      throw new Error('no script');
    });
    await expect(add('a', 1)).rejects.toThrow('no script');
  });
});
