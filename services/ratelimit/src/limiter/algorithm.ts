import type { CounterOp } from '../backends/types.js';
import type { Limit } from '../config/rule-set.js';

/** One limit of one descriptor, at one instant. */
export interface Check {
  limit: Limit;
  /** `keyBase(…)` of the request's descriptor. */
  keyBase: string;
  nowMs: number;
  /** Seconds added to a counter's expiry, spreading expiry load (`EXPIRATION_JITTER_MAX_SECONDS`). */
  jitterSeconds: number;
}

/**
 * `apply` counts the hits; `peek` (`STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT`'s first round trip) changes
 * nothing and answers what applying them would give.
 */
export type Mode = 'apply' | 'peek';

export interface Outcome {
  over: boolean;
  remaining: number;
  resetSec: number;
  /** The hits counted against the limit after this request and the most it allows, for the statistics. */
  after: number;
  max: number;
  /** When over: until when (ms) the local cache may answer for `cacheKey` without the store. */
  overUntilMs: number;
}

/** How one algorithm turns a limit into store ops and their answers into an outcome. */
export interface Algorithm {
  /** The key the local over-limit cache knows this limit by. */
  cacheKey(c: Check): string;
  ops(c: Check, hits: number, mode: Mode): CounterOp[];
  /** `answers` holds one number per op of `ops`, in order. */
  outcome(c: Check, answers: readonly number[], at: { hits: number; mode: Mode }): Outcome;
}
