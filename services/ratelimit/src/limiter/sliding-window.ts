import type { Algorithm, Check } from './algorithm.js';
import { windowStart } from './cache-key.js';

function windowOf(c: Check): { current: string; previous: string; startMs: number } {
  const { unitSeconds, keySuffix } = c.limit;
  const start = windowStart(Math.floor(c.nowMs / 1000), unitSeconds);
  return {
    current: c.keyBase + String(start) + keySuffix,
    previous: c.keyBase + String(start - unitSeconds) + keySuffix,
    startMs: start * 1000,
  };
}

/**
 * The sliding window approximated from two fixed windows (upstream's keys, so a fixed and a sliding limit
 * of the same unit share counters): `count = floor(previous × (1 − elapsed fraction of the current
 * window)) + current`. One extra GET in the same round trip, O(1) memory per key; a sorted set of
 * timestamps would be exact but cost memory per request and a Lua script.
 */
export const slidingWindow: Algorithm = {
  cacheKey: (c) => windowOf(c).current,
  ops(c, hits, mode) {
    const { unitSeconds } = c.limit;
    const w = windowOf(c);
    const previous = { kind: 'read', key: w.previous, unitSeconds } as const;
    if (mode === 'peek') return [{ kind: 'read', key: w.current, unitSeconds }, previous];
    // the current window's count is read again as the previous one for a whole unit after it ends
    const ttlSeconds = 2 * unitSeconds + c.jitterSeconds;
    return [{ kind: 'increment', key: w.current, hits, ttlSeconds, unitSeconds }, previous];
  },
  outcome(c, answers, { hits, mode }) {
    const { unitSeconds, requestsPerUnit: max } = c.limit;
    const w = windowOf(c);
    const current = (answers[0] ?? 0) + (mode === 'peek' ? hits : 0);
    const previous = answers[1] ?? 0;
    const unitMs = unitSeconds * 1000;
    const count = Math.floor(previous * (1 - (c.nowMs - w.startMs) / unitMs)) + current;
    const over = count > max;
    const admitAtMs = nextAdmitMs({ current, previous, max, startMs: w.startMs, unitMs });
    return {
      over,
      remaining: over ? 0 : max - count,
      resetSec: over
        ? Math.max(1, Math.ceil((admitAtMs - c.nowMs) / 1000))
        : unitSeconds - (Math.floor(c.nowMs / 1000) % unitSeconds),
      after: count,
      max,
      overUntilMs: admitAtMs,
    };
  },
};

/** When one more hit would be admitted again if no other came: the previous window's weight has to fade. */
function nextAdmitMs(w: {
  current: number;
  previous: number;
  max: number;
  startMs: number;
  unitMs: number;
}): number {
  const endMs = w.startMs + w.unitMs;
  if (w.current < w.max) {
    // floor(previous × (1 − f)) + current + 1 ≤ max  ⇔  f > 1 − (max − current) / previous
    return Math.floor(w.startMs + w.unitMs * (1 - (w.max - w.current) / w.previous)) + 1;
  }
  if (w.max === 0) return endMs + w.unitMs;
  // next window: the current count becomes the previous one
  return Math.floor(endMs + w.unitMs * (1 - w.max / w.current)) + 1;
}
