import { InvalidArgumentError } from '@portcullis/kit';
import { PasswordChecksBusyError } from './errors.js';
import type { PasswordHasher } from './password-hasher.js';

export interface PasswordCheckLimits {
  /** Hashes and verifications running at once (each scrypt holds ~128 MiB and a libuv thread). */
  maxConcurrent: number;
  /** Calls waiting for a slot; one more is refused with `PasswordChecksBusyError`. */
  maxQueued: number;
}

/**
 * Two running at once leave the event loop's other work a core on a two-core pod, and two of libuv's four
 * threads free for file and DNS work; eight waiting are about two seconds of work at the default scrypt cost.
 */
export const DEFAULT_PASSWORD_CHECK_LIMITS: Readonly<PasswordCheckLimits> = Object.freeze({
  maxConcurrent: 2,
  maxQueued: 8,
});

/**
 * `hasher` behind a semaphore: at most `maxConcurrent` of its `hash` and `verify` calls run at once, at most
 * `maxQueued` more wait (first come, first served), and any call beyond that rejects at once with
 * `PasswordChecksBusyError` without hashing. @throws InvalidArgumentError for limits out of range.
 */
export function limitPasswordChecks(hasher: PasswordHasher, limits: PasswordCheckLimits): PasswordHasher {
  const { maxConcurrent, maxQueued } = limits;
  if (
    !Number.isInteger(maxConcurrent) ||
    maxConcurrent < 1 ||
    !Number.isInteger(maxQueued) ||
    maxQueued < 0
  ) {
    throw new InvalidArgumentError(
      `password check limits: maxConcurrent=${maxConcurrent} (integer ≥ 1), maxQueued=${maxQueued} (integer ≥ 0)`,
    );
  }
  let running = 0;
  const waiting: Array<() => void> = [];

  const acquire = (): Promise<void> => {
    if (running < maxConcurrent) {
      running++;
      return Promise.resolve();
    }
    if (waiting.length >= maxQueued) return Promise.reject(new PasswordChecksBusyError());
    // the slot passes straight to the next waiter, so `running` never dips and lets a newcomer jump the queue
    return new Promise((resolve) => waiting.push(resolve));
  };
  const release = (): void => {
    const next = waiting.shift();
    if (next) next();
    else running--;
  };
  const gated = async <T>(run: () => Promise<T>): Promise<T> => {
    await acquire();
    try {
      return await run();
    } finally {
      release();
    }
  };

  return {
    hash: (password) => gated(() => hasher.hash(password)),
    verify: (password, stored) => gated(() => hasher.verify(password, stored)),
    needsRehash: (stored) => hasher.needsRehash(stored),
  };
}
