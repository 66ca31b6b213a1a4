/** Up to half an interval is added, so clients that lost the same server do not all come back at once. */
export const RETRY_JITTER_FRACTION = 0.5;

/**
 * The wait before the next stream: at least the interval, whatever ended the last one (upstream ratelimit
 * #502 spun on a reset stream), plus jitter. `random` returns a number in [0, 1), like `Math.random`.
 */
export function computeRetryDelayMs(intervalMs: number, random: () => number): number {
  return Math.round(intervalMs * (1 + RETRY_JITTER_FRACTION * random()));
}
