import { describe, expect, it } from 'vitest';
import type { Check } from './algorithm.js';
import { limitOf } from './test-limits.js';
import { tokenBucket } from './token-bucket.js';

const NOW_MS = 1_795_348_830_000;
const NOW_US = NOW_MS * 1000;
const INTERVAL_US = 10_000_000;

/** 6 a minute (one every 10 s), burst 3: a capacity of 30 s. */
const check: Check = {
  limit: limitOf({ requestsPerUnit: 6, algorithm: 'token_bucket', burst: 3 }),
  keyBase: 'd_k_v_',
  nowMs: NOW_MS,
  jitterSeconds: 0,
};

describe('tokenBucket', () => {
  it('peeks with a take that costs nothing', () => {
    expect(tokenBucket.ops(check, 2, 'peek')).toEqual([
      {
        kind: 'take',
        key: 'd_k_v_tb',
        unitSeconds: 60,
        nowUs: NOW_US,
        costUs: 0,
        capacityUs: 3 * INTERVAL_US,
      },
    ]);
  });

  it('admitted: remaining is what the bucket still holds, the reset when it is full again', () => {
    const tatUs = NOW_US + INTERVAL_US;
    expect(tokenBucket.outcome(check, [tatUs], { hits: 1, mode: 'apply' })).toEqual({
      over: false,
      remaining: 2,
      resetSec: 10,
      after: 1,
      max: 3,
      overUntilMs: NOW_MS - 10_000,
    });
  });

  it('refused: over until the next request would be admitted, counting the refused hits', () => {
    const tatUs = NOW_US + 3 * INTERVAL_US;
    expect(tokenBucket.outcome(check, [-tatUs], { hits: 1, mode: 'apply' })).toEqual({
      over: true,
      remaining: 0,
      resetSec: 10,
      after: 4,
      max: 3,
      overUntilMs: NOW_MS + 10_000,
    });
  });

  it('peek: the hits are admitted while they fit the capacity exactly', () => {
    // one request used: two more fit
    expect(tokenBucket.outcome(check, [NOW_US + INTERVAL_US], { hits: 2, mode: 'peek' })).toEqual({
      over: false,
      remaining: 0,
      resetSec: 30,
      after: 3,
      max: 3,
      overUntilMs: NOW_MS + 10_000,
    });
  });

  it('peek: hits that would overflow the bucket are refused, the bucket unchanged', () => {
    // two requests used: two more do not fit, one would now
    expect(tokenBucket.outcome(check, [NOW_US + 2 * INTERVAL_US], { hits: 2, mode: 'peek' })).toEqual({
      over: true,
      remaining: 0,
      resetSec: 1,
      after: 4,
      max: 3,
      overUntilMs: NOW_MS,
    });
  });
});
