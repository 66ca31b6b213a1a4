import type { Logger } from '@portcullis/kit';
import type { ForwardAttempt } from '../contract/capture-records.js';
import type { InboxStore } from '../store/types.js';
import type { DeadLetters } from '../forwarding-store/dead-letters.js';
import type { SettledAttempt } from './retry-schedule.js';
import type { AttemptOutcome } from './worker-metrics.js';

export interface AttemptRecorderOptions {
  store: InboxStore;
  deadLetters: DeadLetters;
  log: Logger;
  /** Told of each attempt recorded: its outcome and number (1 for the first). */
  onAttempt?: ((outcome: AttemptOutcome, attempt: number) => void) | undefined;
}

/** One attempt at one target for one capture. */
export interface AttemptKey {
  endpointId: string;
  requestId: string;
  target: string;
  attempt: number;
}

/** Records each attempt in the capture's forwarding history, with its outcome. */
export interface AttemptRecorder {
  delivered(key: AttemptKey, result: SettledAttempt, at: number): Promise<void>;
  /** Given up: the capture goes to the dead letters too. */
  dead(key: AttemptKey, result: SettledAttempt, at: number): Promise<void>;
  /** Another attempt is due at `dueAt`. */
  retrying(key: AttemptKey, result: SettledAttempt, times: { at: number; dueAt: number }): Promise<void>;
}

export function createAttemptRecorder(o: AttemptRecorderOptions): AttemptRecorder {
  const record = async (key: AttemptKey, attempt: RecordedAttempt): Promise<void> => {
    await o.store.recordForwardAttempt(key.endpointId, key.requestId, attempt);
    o.onAttempt?.(attempt.outcome, key.attempt);
  };
  return {
    delivered: (key, result, at) => record(key, toAttempt(key, result, { at, outcome: 'delivered' })),
    async dead(key, result, at) {
      const attempt = toAttempt(key, result, { at, outcome: 'dead' });
      // the dead letter first: a crash before the record repeats the attempt, never loses the letter
      await o.deadLetters.add({
        endpointId: key.endpointId,
        requestId: key.requestId,
        target: key.target,
        attempts: String(key.attempt),
        last: attempt.status === undefined ? (attempt.error ?? '') : String(attempt.status),
        at: attempt.at,
      });
      await record(key, attempt);
      const { endpointId, requestId, target } = key;
      o.log.warn({ endpointId, requestId, target, attempt: key.attempt }, 'capture dead-lettered');
    },
    retrying: (key, result, { at, dueAt }) =>
      record(key, {
        ...toAttempt(key, result, { at, outcome: 'retrying' }),
        nextAttemptAt: new Date(dueAt).toISOString(),
      }),
  };
}

type RecordedAttempt = ForwardAttempt & { outcome: AttemptOutcome };

function toAttempt(
  key: AttemptKey,
  result: SettledAttempt,
  o: { at: number; outcome: AttemptOutcome },
): RecordedAttempt {
  return {
    target: key.target,
    attempt: key.attempt,
    ...(result.kind === 'answered' ? { status: result.status } : { error: result.error }),
    at: new Date(o.at).toISOString(),
    outcome: o.outcome,
  };
}
