import { UNIT_SECONDS } from '@portcullis/config';
import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../backends/memory.js';
import type { CounterOp } from '../backends/types.js';
import type { Limit } from '../config/rule-set.js';
import { Stats } from '../stats.js';
import { Limiter, type LimitItem } from './limiter.js';
import { OverLimitCache } from './over-limit-cache.js';

const NOW_MS = 1_795_348_830_000;

export function limitOf(o: Partial<Limit> & Pick<Limit, 'requestsPerUnit'>): Limit {
  const unit = o.unit ?? 'MINUTE';
  return {
    unit,
    unitSeconds: UNIT_SECONDS[unit],
    name: undefined,
    shadowMode: false,
    stats: undefined,
    algorithm: 'fixed_window',
    burst: undefined,
    keySuffix: '',
    ...o,
  };
}

function harness(ratio = 0.8, overLimitCache?: OverLimitCache, stopIncrementWhenOverLimit = false) {
  const clock = { nowMs: NOW_MS };
  const store = createMemoryStore(() => clock.nowMs);
  const ops: CounterOp[] = [];
  const roundTrips: number[] = [];
  const limiter = new Limiter({
    store: { ...store, run: (o) => (ops.push(...o), roundTrips.push(o.length), store.run(o)) },
    now: () => clock.nowMs,
    nearLimitRatio: ratio,
    cacheKeyPrefix: 'p:',
    expirationJitterMaxSeconds: 300,
    random: () => 0.5,
    overLimitCache,
    stopIncrementWhenOverLimit,
  });
  const stats = new Stats();
  const itemOf = (limits: Limit[], hitsAddend = 1, value = 'v'): LimitItem => ({
    entries: [{ key: 'k', value }],
    limits,
    hitsAddend,
    stats: stats.rule('d', 'k'),
  });
  const item = (requestsPerUnit: number, hitsAddend = 1, shadowMode = false): LimitItem =>
    itemOf([limitOf({ requestsPerUnit, shadowMode })], hitsAddend);
  const counts = () =>
    Object.fromEntries(
      stats
        .lines()
        .map((l) => /\.k\.(\w+): (\d+)$/.exec(l))
        .flatMap((m) => (m?.[1] && m[2] ? [[m[1], Number(m[2])]] : [])),
    ) as Record<string, number>;
  return { limiter, ops, roundTrips, item, itemOf, counts, clock };
}

describe('Limiter', () => {
  it('increments with a one-unit expiry plus jitter and reports remaining and reset', async () => {
    const h = harness();
    const [status] = await h.limiter.doLimit('d', [h.item(10)]);
    expect(h.ops).toEqual([
      { kind: 'increment', key: 'p:d_k_v_1795348800', hits: 1, ttlSeconds: 60 + 150, unitSeconds: 60 },
    ]);
    expect(status).toEqual({
      code: 'OK',
      currentLimit: { name: undefined, requestsPerUnit: 10, unit: 'MINUTE' },
      limitRemaining: 9,
      durationUntilResetSec: 30,
    });
  });

  it('skips the store when nothing has a limit', async () => {
    const h = harness();
    const statuses = await h.limiter.doLimit('d', [undefined, undefined]);
    expect(h.ops).toEqual([]);
    expect(statuses.map((s) => s.code)).toEqual(['OK', 'OK']);
  });

  it('counts within, near and over limit as upstream does', async () => {
    const h = harness();
    for (let i = 0; i < 12; i++) await h.limiter.doLimit('d', [h.item(10)]);
    // near threshold floor(10 * 0.8) = 8: hits 9 and 10 are near, 11 and 12 are over
    expect(h.counts()).toEqual({
      total_hits: 12,
      within_limit: 10,
      near_limit: 2,
      over_limit: 2,
      over_limit_with_local_cache: 0,
      shadow_mode: 0,
    });
  });

  it('splits a multi-hit increment that crosses the thresholds', async () => {
    const h = harness();
    await h.limiter.doLimit('d', [h.item(10, 7)]);
    const [over] = await h.limiter.doLimit('d', [h.item(10, 6)]);
    // before 7, after 13: 3 over the limit, near 10 - max(8, 7) = 2
    expect(over?.code).toBe('OVER_LIMIT');
    expect(h.counts()).toEqual({
      total_hits: 13,
      within_limit: 7,
      near_limit: 2,
      over_limit: 3,
      over_limit_with_local_cache: 0,
      shadow_mode: 0,
    });
  });

  it('computes the near threshold in float32, as upstream', async () => {
    // 100 × 0.29 is 28.999999999999996 in float64 but 29 in float32: hit 29 is not near the limit yet
    const h = harness(0.29);
    for (let i = 0; i < 29; i++) await h.limiter.doLimit('d', [h.item(100)]);
    expect(h.counts().near_limit).toBe(0);
    await h.limiter.doLimit('d', [h.item(100)]);
    expect(h.counts().near_limit).toBe(1);
  });

  it('answers OK in shadow mode but records the over-limit hits', async () => {
    const h = harness();
    await h.limiter.doLimit('d', [h.item(1, 1, true)]);
    const [status] = await h.limiter.doLimit('d', [h.item(1, 3, true)]);
    expect([status?.code, status?.limitRemaining]).toEqual(['OK', 0]);
    expect(h.counts()).toMatchObject({ over_limit: 3, shadow_mode: 3 });
  });

  it('blocks everything with requests_per_unit 0', async () => {
    const h = harness();
    const [status] = await h.limiter.doLimit('d', [h.item(0)]);
    expect(status?.code).toBe('OVER_LIMIT');
  });

  it('answers keys over limit from the local cache without the store, counting them', async () => {
    const h = harness(0.8, new OverLimitCache(1024));
    for (let i = 0; i < 3; i++) await h.limiter.doLimit('d', [h.item(2)]);
    expect(h.ops).toHaveLength(3);
    const [status] = await h.limiter.doLimit('d', [h.item(2, 4)]);
    expect(h.ops).toHaveLength(3);
    expect(status).toMatchObject({ code: 'OVER_LIMIT', limitRemaining: 0, durationUntilResetSec: 30 });
    expect(h.counts()).toMatchObject({ total_hits: 7, over_limit: 5, over_limit_with_local_cache: 4 });
  });

  it('answers OK from the local cache in shadow mode, counting shadow_mode', async () => {
    const h = harness(0.8, new OverLimitCache(1024));
    await h.limiter.doLimit('d', [h.item(0, 1, true)]);
    const [status] = await h.limiter.doLimit('d', [h.item(0, 1, true)]);
    expect(h.ops).toHaveLength(1);
    expect(status?.code).toBe('OK');
    expect(h.counts()).toMatchObject({ over_limit_with_local_cache: 1, shadow_mode: 2 });
  });
});
