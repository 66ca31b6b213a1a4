import type { ForwardTarget } from '@portcullis/config';
import { describe, expect, it } from 'vitest';
import type { ForwardAttempt } from '../contract/capture-records.js';
import { isDelivered, isRetried, resumeAttempts, scheduleRetry } from './retry-schedule.js';

const target: ForwardTarget = {
  url: 'http://target.test',
  pathMode: 'append',
  enabled: true,
  timeoutSeconds: 10,
  maxAttempts: 3,
  initialDelaySeconds: 1,
  maxDelaySeconds: 60,
  maxConcurrent: 1,
};
const attempt = (o: Partial<ForwardAttempt>): ForwardAttempt => ({
  target: target.url,
  attempt: 1,
  at: '1970-01-01T00:00:00.000Z',
  outcome: 'retrying',
  ...o,
});

describe('resumeAttempts', () => {
  const now = (): number => 5000;
  it('starts at attempt 1, due now, without a history', () => {
    expect(resumeAttempts([], now)).toEqual({ attempt: 1, dueAt: 5000 });
  });
  it('resumes a retry at its recorded due time, so a claimed capture keeps the wait', () => {
    const past = [attempt({ attempt: 2, nextAttemptAt: '1970-01-01T00:00:09.000Z' })];
    expect(resumeAttempts(past, now)).toEqual({ attempt: 3, dueAt: 9000 });
  });
  it('counts again from 1 after a redrive', () => {
    const past = [attempt({ attempt: 3, outcome: 'dead' }), attempt({ attempt: 0, outcome: 'redriven' })];
    expect(resumeAttempts(past, now)).toEqual({ attempt: 1, dueAt: 5000 });
  });
  it('is done once delivered or dead', () => {
    expect(resumeAttempts([attempt({ outcome: 'delivered' })], now)).toBeUndefined();
    expect(resumeAttempts([attempt({ outcome: 'dead' })], now)).toBeUndefined();
  });
});

describe('isDelivered and isRetried', () => {
  it('delivers on 2xx only', () => {
    expect([199, 200, 204, 299, 300, 302].map((status) => isDelivered({ kind: 'answered', status }))).toEqual(
      [false, true, true, true, false, false],
    );
    expect(isDelivered({ kind: 'failed', error: 'ECONNREFUSED', retryable: true })).toBe(false);
  });
  it('retries the target’s failures while attempts remain, never an egress refusal', () => {
    expect(isRetried({ kind: 'answered', status: 503 }, { attempt: 2, target })).toBe(true);
    expect(isRetried({ kind: 'answered', status: 503 }, { attempt: 3, target })).toBe(false);
    expect(isRetried({ kind: 'answered', status: 404 }, { attempt: 1, target })).toBe(false);
    expect(isRetried({ kind: 'failed', error: 'timeout', retryable: true }, { attempt: 1, target })).toBe(
      true,
    );
    expect(
      isRetried({ kind: 'failed', error: 'egress refused', retryable: false }, { attempt: 1, target }),
    ).toBe(false);
  });
});

describe('scheduleRetry', () => {
  it('backs off from the attempt’s time, never before the answer’s Retry-After', () => {
    const at = 10_000;
    expect(
      scheduleRetry(
        { kind: 'failed', error: 'x', retryable: true },
        { attempt: 2, target, at, random: () => 0.5 },
      ),
    ).toBe(11_000);
    expect(
      scheduleRetry(
        { kind: 'answered', status: 429, retryAfter: '30' },
        { attempt: 1, target, at, random: () => 0 },
      ),
    ).toBe(40_000);
  });
});
