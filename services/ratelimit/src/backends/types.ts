/** Add `hits` to the counter `key` (absent = 0) and keep the key `ttlSeconds`; answers the value after. */
export interface CounterIncrement {
  kind: 'increment';
  key: string;
  hits: number;
  ttlSeconds: number;
  /** The limit's unit, in seconds: per-second limits may live in a store of their own. */
  unitSeconds: number;
}

/** Read the counter `key` without changing it; answers its value, 0 when absent. */
export interface CounterRead {
  kind: 'read';
  key: string;
  unitSeconds: number;
}

/**
 * A token-bucket take (GCRA): `key` holds the bucket's theoretical arrival time (TAT, µs since the epoch;
 * absent = a full bucket). With `base = max(TAT, nowUs)`, the hits are admitted when
 * `base + costUs − nowUs ≤ capacityUs`; then the TAT becomes `base + costUs` and the key expires when the
 * bucket is full again. Answers the TAT after the take when admitted, and `−base` (the TAT unchanged,
 * negated) when refused. Atomic in every store that supports it.
 */
export interface BucketTake {
  kind: 'take';
  key: string;
  unitSeconds: number;
  nowUs: number;
  /** The hits times the emission interval (the unit divided by the requests per unit), whole µs. */
  costUs: number;
  /** The burst times the emission interval, whole µs. */
  capacityUs: number;
}

export type CounterOp = CounterIncrement | CounterRead | BucketTake;

/** Commands each op costs in Redis: what `KVSTORE_PIPELINE_LIMIT` counts. */
export function commandCount(op: CounterOp): number {
  return op.kind === 'increment' ? 2 : 1;
}

/**
 * Where hit counters live. Implementations: Redis (`redis.ts`), memcached (`memcached.ts`), in-process
 * memory (`memory.ts`); `per-second.ts` and `pipeline-window.ts` combine or wrap them.
 */
export interface CounterStore {
  /**
   * Applies every op in one round trip where the store allows and answers one number per op, in order.
   * Rejects with a `BackendError` when the store cannot answer.
   */
  run(ops: readonly CounterOp[]): Promise<number[]>;
  /** False for a store that cannot take from a token bucket atomically (memcached). */
  readonly supportsTokenBuckets: boolean;
  /** Resolves once the store can serve requests (connected); rejects if it never will. */
  ready(): Promise<void>;
  close(): Promise<void>;
}
