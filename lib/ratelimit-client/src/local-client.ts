import { RateLimitClientClosedError } from './errors.js';
import type { LocalLimiter, RateLimitClient } from './types.js';

/** A `RateLimitClient` answered by `limiter` alone: for a service run without a ratelimit service. */
export function createLocalRateLimitClient(limiter: LocalLimiter): RateLimitClient {
  let calls = 0;
  let closed = false;
  return {
    decide(request) {
      if (closed) return Promise.reject(new RateLimitClientClosedError());
      calls++;
      return Promise.resolve(limiter.decide(request));
    },
    stats: () => ({ calls, failures: 0, failuresByReason: {}, failedOpen: 0, failedClosed: 0 }),
    close() {
      closed = true;
    },
  };
}
