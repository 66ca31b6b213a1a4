import { describe, expect, it } from 'vitest';
import { computeRetryDelayMs, isRetryableStatus, parseRetryAfterMs } from './backoff.js';

describe('computeRetryDelayMs', () => {
  const base = { initialDelayMs: 1000, maxDelayMs: 60_000 };
  it('draws from [0, initial·2^(attempt−1)) (full jitter)', () => {
    expect(computeRetryDelayMs({ ...base, attempt: 1, random: () => 0.999 })).toBe(999);
    expect(computeRetryDelayMs({ ...base, attempt: 3, random: () => 0.5 })).toBe(2000);
    expect(computeRetryDelayMs({ ...base, attempt: 1, random: () => 0 })).toBe(0);
  });
  it('caps the ceiling at maxDelayMs', () => {
    expect(computeRetryDelayMs({ ...base, attempt: 30, random: () => 0.5 })).toBe(30_000);
  });
  it('never retries before Retry-After, itself capped at maxDelayMs', () => {
    expect(computeRetryDelayMs({ ...base, attempt: 1, retryAfterMs: 5000, random: () => 0.5 })).toBe(5000);
    expect(computeRetryDelayMs({ ...base, attempt: 1, retryAfterMs: 3_600_000, random: () => 0 })).toBe(
      60_000,
    );
  });
});

describe('parseRetryAfterMs', () => {
  it('reads seconds and HTTP dates', () => {
    expect(parseRetryAfterMs('120', 0)).toBe(120_000);
    expect(parseRetryAfterMs(' 120 ', 0)).toBe(120_000);
    expect(parseRetryAfterMs('Thu, 01 Jan 1970 00:00:10 GMT', 4000)).toBe(6000);
    expect(parseRetryAfterMs('Thu, 01 Jan 1970 00:00:01 GMT', 4000)).toBe(0);
  });
  it('ignores what is absent or unreadable', () => {
    expect(parseRetryAfterMs(undefined, 0)).toBeUndefined();
    expect(parseRetryAfterMs('soon', 0)).toBeUndefined();
    // digits with something else around them are neither seconds nor a date
    expect(parseRetryAfterMs('x5', 0)).toBeUndefined();
    expect(parseRetryAfterMs('5s', 0)).toBeUndefined();
  });
});

describe('isRetryableStatus', () => {
  it('retries timeouts, rate limits and server errors only', () => {
    expect([408, 425, 429, 500, 503].every(isRetryableStatus)).toBe(true);
    expect([301, 400, 401, 404, 410].some(isRetryableStatus)).toBe(false);
  });
});
