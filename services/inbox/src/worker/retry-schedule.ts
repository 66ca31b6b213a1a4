import type { ForwardTarget } from '@portcullis/config';
import type { ForwardAttempt } from '../contract/capture-records.js';
import { computeRetryDelayMs, isRetryableStatus, parseRetryAfterMs } from '../contract/backoff.js';
import type { AttemptResult } from './target-delivery.js';

/** What an attempt leaves to record: an answer or a failure. */
export type SettledAttempt = Exclude<AttemptResult, { kind: 'aborted' }>;

/**
 * Where a target's attempts resume, from its history of one capture: the next attempt's number and when it
 * is due (`nextAttemptAt`, so a worker that claims the capture keeps the wait). Undefined when done.
 */
export function resumeAttempts(
  past: readonly ForwardAttempt[],
  now: () => number,
): { attempt: number; dueAt: number } | undefined {
  const last = past.at(-1);
  // redriven: attempt 0 in the history, so the count starts again
  if (last && last.outcome !== 'retrying' && last.outcome !== 'redriven') return undefined;
  return {
    attempt: (last?.attempt ?? 0) + 1,
    dueAt: last?.nextAttemptAt ? Date.parse(last.nextAttemptAt) : now(),
  };
}

export function isDelivered(result: SettledAttempt): boolean {
  return result.kind === 'answered' && result.status >= 200 && result.status < 300;
}

/** Whether another attempt follows one that was not delivered: its failure is retryable and attempts remain. */
export function isRetried(result: SettledAttempt, o: { attempt: number; target: ForwardTarget }): boolean {
  const retryable = result.kind === 'answered' ? isRetryableStatus(result.status) : result.retryable;
  return retryable && o.attempt < o.target.maxAttempts;
}

/** When the next attempt is due after one at `at`: the target's backoff, or the answer's `Retry-After`. */
export function scheduleRetry(
  result: SettledAttempt,
  o: { attempt: number; target: ForwardTarget; at: number; random: () => number },
): number {
  const retryAfter = result.kind === 'answered' ? result.retryAfter : undefined;
  return (
    o.at +
    computeRetryDelayMs({
      attempt: o.attempt,
      initialDelayMs: o.target.initialDelaySeconds * 1000,
      maxDelayMs: o.target.maxDelaySeconds * 1000,
      retryAfterMs: parseRetryAfterMs(retryAfter, o.at),
      random: o.random,
    })
  );
}
