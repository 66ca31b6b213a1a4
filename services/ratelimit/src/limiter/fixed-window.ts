import type { Algorithm, Check } from './algorithm.js';
import { windowStart } from './cache-key.js';

const keyOf = (c: Check): string =>
  c.keyBase + String(windowStart(Math.floor(c.nowMs / 1000), c.limit.unitSeconds)) + c.limit.keySuffix;

/** Upstream's counter: one key per epoch-aligned window, `INCRBY` + `EXPIRE`. */
export const fixedWindow: Algorithm = {
  cacheKey: keyOf,
  ops(c, hits, mode) {
    const { unitSeconds } = c.limit;
    const key = keyOf(c);
    if (mode === 'peek') return [{ kind: 'read', key, unitSeconds }];
    return [{ kind: 'increment', key, hits, ttlSeconds: unitSeconds + c.jitterSeconds, unitSeconds }];
  },
  outcome(c, answers, { hits, mode }) {
    const { unitSeconds, requestsPerUnit: max } = c.limit;
    const after = (answers[0] ?? 0) + (mode === 'peek' ? hits : 0);
    const nowSec = Math.floor(c.nowMs / 1000);
    const over = after > max;
    return {
      over,
      remaining: over ? 0 : max - after,
      resetSec: unitSeconds - (nowSec % unitSeconds),
      after,
      max,
      overUntilMs: (windowStart(nowSec, unitSeconds) + unitSeconds) * 1000,
    };
  },
};
