// The dead letters of the managed endpoints, per endpoint, whatever holds them: a Redis stream per endpoint
// (redis-dead-letters.ts: the worker adds, the inbox lists and redrives) or the memory store's counterpart
// (memory-dead-letters.ts, local mode). Both keep the same contract, and a redrive is atomic in each: a
// letter is redriven once, however many callers ask at the same time.

/** One capture given up on one target (a type, not an interface: the Redis store writes it as a field map). */
export type DeadLetter = {
  endpointId: string;
  requestId: string;
  target: string;
  attempts: string;
  /** The last status, or the last error. */
  last: string;
  /** ISO 8601. */
  at: string;
};

/** A dead letter as kept: `id` orders them (a stream id, `<ms>-<seq>`) and names it to redrive. */
export type StoredDeadLetter = DeadLetter & { id: string };

/**
 * What a redrive did: `redriven` (the capture is queued again for the letter's target, the letter removed),
 * `missing` (no such letter, e.g. already redriven), `busy` (the capture is being forwarded to another of
 * its targets: redrive once that is done), `gone` (the capture is no longer kept: the letter is removed).
 */
export type RedriveResult = 'redriven' | 'missing' | 'busy' | 'gone';

export interface DeadLetters {
  add(letter: DeadLetter): Promise<void>;
  /** Newest first, `before` a letter id (exclusive). */
  list(endpointId: string, o: { limit: number; before?: string }): Promise<StoredDeadLetter[]>;
  get(endpointId: string, id: string): Promise<StoredDeadLetter | undefined>;
  /**
   * Queues the capture again for the letter's target with a fresh attempt count (a `redriven` entry in its
   * forwarding history; any forwarder picks it up with the idle captures it claims), then removes the letter.
   */
  redrive(letter: StoredDeadLetter): Promise<RedriveResult>;
  /** Letters kept over these endpoints. */
  count(endpointIds: readonly string[]): Promise<number>;
}

/** The dead letters kept per endpoint (approximately, in Redis): the newest. */
export const MAX_DEAD_LETTERS_PER_ENDPOINT = 1_000;

/** The history entry a redrive adds: attempt 0, so the next attempt is the first again. */
export function redriveEntry(letter: StoredDeadLetter, at: string) {
  return { target: letter.target, attempt: 0, at, outcome: 'redriven' as const };
}

/** How long a redriven capture looks idle: past any `INBOX_WORKER_CLAIM_IDLE` (at most 24 h), so claimed at once. */
export const REDRIVE_IDLE_MS = 2 * 24 * 3_600_000;
/** The consumer a redriven capture waits on until a forwarder claims it. */
export const REDRIVE_CONSUMER = 'redrive';
