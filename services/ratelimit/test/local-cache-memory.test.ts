import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { OverLimitCache } from '../src/limiter/over-limit-cache.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function heapUsedBytes(): number {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

describe('local over-limit cache memory', () => {
  it('stays within a generous bound of its budget with one million distinct keys', () => {
    const budget = 16 * 1024 * 1024;
    const before = heapUsedBytes();
    const cache = new OverLimitCache(budget);
    const windowEndMs = Date.now() + 3_600_000;
    for (let i = 0; i < 1_000_000; i++) {
      cache.add(`ratelimit:tenant_client_${i}_path_/api/v1/items_1795348800`, {
        expiresAtMs: windowEndMs,
        nowMs: 0,
      });
    }
    const grown = heapUsedBytes() - before;
    expect(cache.estimatedBytes).toBeLessThanOrEqual(budget);
    expect(cache.size).toBeLessThan(1_000_000);
    expect(
      cache.overUntilMs('ratelimit:tenant_client_999999_path_/api/v1/items_1795348800', 0) !== undefined,
    ).toBe(true);
    // a million such keys unbounded take well over 150 MB
    expect(grown).toBeLessThan(2 * budget);
  });
});
