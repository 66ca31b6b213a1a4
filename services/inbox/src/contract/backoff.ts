// When to try a target again: exponential backoff with full jitter (a random delay between 0 and the
// exponential ceiling, so retries of many captures spread out), never before the target's Retry-After.

export interface RetryDelayOptions {
  /** The attempt that just failed, 1 for the first. */
  attempt: number;
  initialDelayMs: number;
  maxDelayMs: number;
  /** From the target's `Retry-After`, when it sent one; capped at `maxDelayMs`. */
  retryAfterMs?: number | undefined;
  /** In [0, 1). */
  random: () => number;
}

export function computeRetryDelayMs(o: RetryDelayOptions): number {
  const ceilingMs = Math.min(o.maxDelayMs, o.initialDelayMs * 2 ** (o.attempt - 1));
  const jitteredMs = Math.floor(o.random() * ceilingMs);
  return Math.max(jitteredMs, Math.min(o.retryAfterMs ?? 0, o.maxDelayMs));
}

/** `Retry-After` as seconds or an HTTP date, in milliseconds from `nowMs`; undefined when absent or bad. */
export function parseRetryAfterMs(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const dateMs = Date.parse(text);
  return Number.isNaN(dateMs) ? undefined : Math.max(0, dateMs - nowMs);
}

/** Statuses worth another attempt: timeouts, rate limiting, server errors. Other non-2xx ones are final. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 425 || status === 429 || status >= 500;
}
