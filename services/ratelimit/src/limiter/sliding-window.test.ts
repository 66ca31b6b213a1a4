import { describe, expect, it } from 'vitest';
import type { Check } from './algorithm.js';
import { slidingWindow } from './sliding-window.js';
import { limitOf } from './test-limits.js';

const START_MS = 1_795_348_800_000; // a minute boundary
const END_MS = START_MS + 60_000;

/** A per-minute sliding-window limit checked 15 s into the window starting at `START_MS`. */
const checkOf = (requestsPerUnit: number): Check => ({
  limit: limitOf({ requestsPerUnit, algorithm: 'sliding_window' }),
  keyBase: 'd_k_v_',
  nowMs: START_MS + 15_000,
  jitterSeconds: 0,
});

describe('slidingWindow', () => {
  it('peeks by reading the current and the previous window, counting nothing', () => {
    expect(slidingWindow.ops(checkOf(10), 3, 'peek')).toEqual([
      { kind: 'read', key: 'd_k_v_1795348800', unitSeconds: 60 },
      { kind: 'read', key: 'd_k_v_1795348740', unitSeconds: 60 },
    ]);
  });

  it('adds the hits to a peeked current count, and resets at the end of the window when within', () => {
    // floor(4 × 0.75) + 3 + 2 = 8
    expect(slidingWindow.outcome(checkOf(10), [3, 4], { hits: 2, mode: 'peek' })).toMatchObject({
      over: false,
      remaining: 2,
      resetSec: 45,
      after: 8,
      max: 10,
    });
  });

  it('over with the current window full: admits again once the current count has faded in the next', () => {
    // next window: floor(5 × (1 − f)) + 1 ≤ 4 when f > 0.2, 12 s into it
    expect(slidingWindow.outcome(checkOf(4), [5, 0], { hits: 1, mode: 'apply' })).toEqual({
      over: true,
      remaining: 0,
      resetSec: 58,
      after: 5,
      max: 4,
      overUntilMs: END_MS + 12_001,
    });
  });

  it('requests_per_unit 0: over until the end of the next window, whatever the counts', () => {
    expect(slidingWindow.outcome(checkOf(0), [1, 0], { hits: 1, mode: 'apply' })).toEqual({
      over: true,
      remaining: 0,
      resetSec: 105,
      after: 1,
      max: 0,
      overUntilMs: END_MS + 60_000,
    });
    // a request that counted nothing in the current window, over from the previous one alone
    expect(slidingWindow.outcome(checkOf(0), [0, 3], { hits: 0, mode: 'apply' })).toMatchObject({
      over: true,
      after: 2,
      overUntilMs: END_MS + 60_000,
    });
  });
});
