import type { RedisOptions } from 'ioredis';

/** The longest wait between two attempts to reconnect to Redis. */
export const MAX_RECONNECT_DELAY_MS = 250;

/**
 * ioredis options for a client on a request path, where a dead Redis must answer 503 at once rather than
 * hang the request: one retry, not ioredis' twenty, and reconnection attempts at most
 * `MAX_RECONNECT_DELAY_MS` apart. A queued command waits for up to two attempts; with ioredis' own delay,
 * which grows to 2 s, a request waited longer for its 503 the longer Redis was down (the gateway's and the
 * inbox's faults-redis tests).
 */
export const FAIL_FAST_OPTIONS: Readonly<RedisOptions> = Object.freeze({
  maxRetriesPerRequest: 1,
  retryStrategy: (attempt: number) => Math.min(attempt * 50, MAX_RECONNECT_DELAY_MS),
});
