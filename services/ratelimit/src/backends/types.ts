/** One counter change: add `hits` to `key` and keep the key for `ttlSeconds`. */
export interface CounterIncrement {
  key: string;
  hits: number;
  ttlSeconds: number;
  /** The limit's unit, in seconds: per-second limits may live in a store of their own. */
  unitSeconds: number;
}

/**
 * Where hit counters live. Implementations: Redis (`redis.ts`), memcached (`memcached.ts`), in-process
 * memory (`memory.ts`); `per-second.ts` and `pipeline-window.ts` combine or wrap them.
 */
export interface CounterStore {
  /**
   * Applies every increment and returns each counter's value after it, in order. Rejects with a
   * `BackendError` when the store cannot answer.
   */
  increment(ops: readonly CounterIncrement[]): Promise<number[]>;
  /** Resolves once the store can serve requests (connected); rejects if it never will. */
  ready(): Promise<void>;
  close(): Promise<void>;
}
