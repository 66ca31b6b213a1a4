import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '@portcullis/kit';
import { PasswordChecksBusyError } from './errors.js';
import { limitPasswordChecks } from './password-check-limit.js';
import type { PasswordHasher } from './password-hasher.js';

/** A hasher whose calls finish when the test says so, counting those that started. */
function createHeldHasher() {
  const pending: Array<() => void> = [];
  let started = 0;
  const held = <T>(value: T): Promise<T> => {
    started++;
    return new Promise((resolve) => pending.push(() => resolve(value)));
  };
  const hasher: PasswordHasher = {
    hash: () => held('$scrypt$stub'),
    verify: () => held(true),
    needsRehash: () => false,
  };
  return {
    hasher,
    started: () => started,
    finishOne: async () => {
      pending.shift()?.();
      await new Promise((r) => setImmediate(r));
    },
  };
}

describe('limitPasswordChecks', () => {
  it('runs maxConcurrent at once, queues maxQueued, refuses the next at once without hashing', async () => {
    const h = createHeldHasher();
    const limited = limitPasswordChecks(h.hasher, { maxConcurrent: 2, maxQueued: 1 });
    const calls = [limited.verify('a', 's'), limited.hash('b'), limited.verify('c', 's')];
    await new Promise((r) => setImmediate(r));
    expect(h.started()).toBe(2);
    await expect(limited.verify('d', 's')).rejects.toBeInstanceOf(PasswordChecksBusyError);
    expect(h.started()).toBe(2);

    await h.finishOne();
    expect(h.started()).toBe(3); // the queued one took the freed slot
    await h.finishOne();
    await h.finishOne();
    expect(await Promise.all(calls)).toEqual([true, '$scrypt$stub', true]);
    // all slots free again
    const again = limited.verify('e', 's');
    await new Promise((r) => setImmediate(r));
    expect(h.started()).toBe(4);
    await h.finishOne();
    expect(await again).toBe(true);
  });

  it('frees the slot when a check fails', async () => {
    const failing: PasswordHasher = {
      hash: () => Promise.reject(new Error('boom')),
      verify: () => Promise.reject(new Error('boom')),
      needsRehash: () => false,
    };
    const limited = limitPasswordChecks(failing, { maxConcurrent: 1, maxQueued: 0 });
    await expect(limited.verify('a', 's')).rejects.toThrow('boom');
    await expect(limited.hash('a')).rejects.toThrow('boom');
  });

  it('asks the hasher whether a hash needs re-hashing, at once even with every slot taken', async () => {
    const held = createHeldHasher();
    const limits = { maxConcurrent: 1, maxQueued: 0 };
    const limited = limitPasswordChecks({ ...held.hasher, needsRehash: (s) => s === 'old' }, limits);
    void limited.hash('a');
    await new Promise((r) => setImmediate(r));
    expect(held.started()).toBe(1);
    expect(limited.needsRehash('old')).toBe(true);
    expect(limited.needsRehash('new')).toBe(false);
  });

  it('refuses limits out of range', () => {
    const h = createHeldHasher().hasher;
    expect(() => limitPasswordChecks(h, { maxConcurrent: 0, maxQueued: 0 })).toThrow(
      new InvalidArgumentError(
        'password check limits: maxConcurrent=0 (integer ≥ 1), maxQueued=0 (integer ≥ 0)',
      ),
    );
    expect(() => limitPasswordChecks(h, { maxConcurrent: 1, maxQueued: -1 })).toThrow(InvalidArgumentError);
  });
});
