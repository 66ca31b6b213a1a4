/** How a client behaves while Redis is unreachable. */
export interface ClientPolicy {
  /** Queue commands while (re)connecting (true), or fail them at once. */
  offlineQueue: boolean;
  maxRetriesPerRequest: number;
  /** Reconnect attempts are `stepMs` apart per attempt so far, at most `maxMs`. */
  reconnectDelay: { stepMs: number; maxMs: number };
  /** Fail a command not answered within the connection's `timeoutMs`. */
  commandTimeout: boolean;
  /**
   * Send the commands issued in one tick together, one write per connection (per node on a cluster):
   * ioredis `enableAutoPipelining`. Off for a client that uses `call`/`callBuffer`: ioredis drops their
   * command name then.
   */
  autoPipelining: boolean;
}

/**
 * For clients on a request path (the gateway's and the inbox's), where a dead Redis must answer 503 at
 * once rather than hang the request: one retry, not ioredis' twenty, and reconnection attempts at most
 * 250 ms apart. A queued command waits for up to two attempts; with ioredis' own delay, which grows to 2 s,
 * a request waited longer for its 503 the longer Redis was down (the gateway's and the inbox's
 * faults-redis tests). No command timeout: the inbox's blocking stream reads wait longer than any.
 */
export const FAIL_FAST_POLICY: Readonly<ClientPolicy> = Object.freeze({
  offlineQueue: true,
  maxRetriesPerRequest: 1,
  reconnectDelay: Object.freeze({ stepMs: 50, maxMs: 250 }),
  commandTimeout: false,
  autoPipelining: true,
});

/**
 * For the ratelimit's counters: commands fail at once while disconnected instead of queueing behind a
 * reconnect, so a decision fails fast (and the failure mode decides), as upstream.
 */
export const NO_QUEUE_POLICY: Readonly<ClientPolicy> = Object.freeze({
  offlineQueue: false,
  maxRetriesPerRequest: 0,
  reconnectDelay: Object.freeze({ stepMs: 100, maxMs: 2000 }),
  commandTimeout: true,
  autoPipelining: true,
});
