import { describe, expect, it } from 'vitest';
import { createMemoryStore } from '../backends/memory.js';
import type { CounterOp } from '../backends/types.js';
import type { Limit } from '../config/rule-set.js';
import { Stats } from '../stats/stats.js';
import { Limiter, type LimitItem } from './limiter.js';
import { OverLimitCache } from './over-limit-cache.js';
import { limitOf } from './test-limits.js';

const NOW_MS = 1_795_348_830_000;

function harness(ratio = 0.8, overLimitCache?: OverLimitCache, stopIncrementWhenOverLimit = false) {
  const clock = { nowMs: NOW_MS };
  const store = createMemoryStore({ now: () => clock.nowMs });
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
    expect(h.roundTrips).toEqual([]);
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

  it('counts the hits within a limit past the near threshold as near it', async () => {
    const h = harness();
    await h.limiter.doLimit('d', [h.item(10, 9)]);
    // near threshold floor(10 × 0.8) = 8: the ninth hit only
    expect(h.counts()).toMatchObject({ within_limit: 9, near_limit: 1, over_limit: 0 });
  });

  it('in shadow mode counts the hits past the limit, not all of a request that crosses it', async () => {
    const h = harness();
    const [status] = await h.limiter.doLimit('d', [h.item(2, 3, true)]);
    expect(status?.code).toBe('OK');
    // near threshold floor(2 × 0.8) = 1: hit 2 is near, hit 3 over
    expect(h.counts()).toMatchObject({ within_limit: 0, near_limit: 1, over_limit: 1, shadow_mode: 1 });
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
    expect(h.counts()).toMatchObject({
      total_hits: 7,
      over_limit: 5,
      over_limit_with_local_cache: 4,
      shadow_mode: 0,
    });
  });

  it('answers OK from the local cache in shadow mode, counting shadow_mode', async () => {
    const h = harness(0.8, new OverLimitCache(1024));
    await h.limiter.doLimit('d', [h.item(0, 1, true)]);
    const [status] = await h.limiter.doLimit('d', [h.item(0, 1, true)]);
    expect(h.ops).toHaveLength(1);
    expect(status?.code).toBe('OK');
    expect(h.counts()).toMatchObject({ over_limit_with_local_cache: 1, shadow_mode: 2 });
  });

  it('rate_limits: the first limit keeps upstream key, the others append :<i>; one round trip, the most restrictive answers', async () => {
    const h = harness();
    h.clock.nowMs = 1_800_000_000_000; // an hour boundary: both windows start at 1800000000
    const limits = [
      limitOf({ requestsPerUnit: 1, unit: 'SECOND' }),
      limitOf({ requestsPerUnit: 3, unit: 'HOUR', keySuffix: ':1' }),
    ];
    const [first] = await h.limiter.doLimit('d', [h.itemOf(limits)]);
    expect(h.ops.map((o) => o.key)).toEqual(['p:d_k_v_1800000000', 'p:d_k_v_1800000000:1']);
    expect(h.roundTrips).toEqual([2]);
    expect(first).toMatchObject({ code: 'OK', limitRemaining: 0, currentLimit: { unit: 'SECOND' } });
    const [second] = await h.limiter.doLimit('d', [h.itemOf(limits)]);
    expect(second).toMatchObject({
      code: 'OVER_LIMIT',
      durationUntilResetSec: 1,
      currentLimit: { unit: 'SECOND' },
    });
    // one statistic per decision, from the deciding limit
    expect(h.counts()).toMatchObject({ total_hits: 2, within_limit: 1, over_limit: 1 });
    h.clock.nowMs += 1000;
    const [third] = await h.limiter.doLimit('d', [h.itemOf(limits)]);
    expect(third).toMatchObject({ code: 'OK', limitRemaining: 0, currentLimit: { unit: 'SECOND' } });
    const [fourth] = await h.limiter.doLimit('d', [h.itemOf(limits, 1)]);
    // both over: the one that frees latest answers
    expect(fourth).toMatchObject({
      code: 'OVER_LIMIT',
      durationUntilResetSec: 3599,
      currentLimit: { unit: 'HOUR' },
    });
  });

  it('rate_limits: answers with the limit that has least remaining, or the over one, or the one freeing latest', async () => {
    const h = harness();
    const hour = (requestsPerUnit: number, keySuffix = '') =>
      limitOf({ requestsPerUnit, unit: 'HOUR', keySuffix });
    const second = (requestsPerUnit: number, keySuffix = '') =>
      limitOf({ requestsPerUnit, unit: 'SECOND', keySuffix });
    const decide = async (limits: Limit[], value: string) =>
      (await h.limiter.doLimit('d', [h.itemOf(limits, 1, value)]))[0];
    expect(await decide([limitOf({ requestsPerUnit: 10 }), hour(3, ':1')], 'within')).toMatchObject({
      code: 'OK',
      limitRemaining: 2,
      currentLimit: { unit: 'HOUR' },
    });
    expect(await decide([hour(10), second(0, ':1')], 'one-over')).toMatchObject({
      code: 'OVER_LIMIT',
      durationUntilResetSec: 1,
      currentLimit: { unit: 'SECOND' },
    });
    expect(await decide([hour(0), second(0, ':1')], 'both-over')).toMatchObject({
      code: 'OVER_LIMIT',
      durationUntilResetSec: 3570,
      currentLimit: { unit: 'HOUR' },
    });
    const tie = [
      limitOf({ requestsPerUnit: 0, name: 'first' }),
      limitOf({ requestsPerUnit: 0, name: 'second', keySuffix: ':1' }),
    ];
    expect(await decide(tie, 'tie')).toMatchObject({ code: 'OVER_LIMIT', currentLimit: { name: 'first' } });
  });

  it('sliding_window: increments the current window and reads the previous one in the same round trip', async () => {
    const h = harness();
    const sliding = limitOf({ requestsPerUnit: 10, algorithm: 'sliding_window' });
    await h.limiter.doLimit('d', [h.itemOf([sliding])]);
    expect(h.ops).toEqual([
      { kind: 'increment', key: 'p:d_k_v_1795348800', hits: 1, ttlSeconds: 2 * 60 + 150, unitSeconds: 60 },
      { kind: 'read', key: 'p:d_k_v_1795348740', unitSeconds: 60 },
    ]);
    expect(h.roundTrips).toEqual([2]);
  });

  it('sliding_window: the local cache forgets a key when one more hit would pass, not at the window end', async () => {
    const h = harness(0.8, new OverLimitCache(1024));
    const sliding = limitOf({ requestsPerUnit: 4, algorithm: 'sliding_window' });
    h.clock.nowMs = 1_795_348_800_000 - 60_000; // previous window: 4 hits
    await h.limiter.doLimit('d', [h.itemOf([sliding], 4)]);
    h.clock.nowMs = 1_795_348_800_000 + 15_000; // floor(4 × 0.75) + 2 = 5 > 4
    const [over] = await h.limiter.doLimit('d', [h.itemOf([sliding], 2)]);
    // one more passes when floor(4 × (1 − f)) + 2 + 1 ≤ 4, so f > 0.5: at 30.001 s
    expect(over).toMatchObject({ code: 'OVER_LIMIT', durationUntilResetSec: 16 });
    const trips = h.roundTrips.length;
    h.clock.nowMs = 1_795_348_800_000 + 30_000;
    expect((await h.limiter.doLimit('d', [h.itemOf([sliding])]))[0]?.code).toBe('OVER_LIMIT');
    expect(h.roundTrips).toHaveLength(trips);
    h.clock.nowMs = 1_795_348_800_000 + 30_002;
    expect((await h.limiter.doLimit('d', [h.itemOf([sliding])]))[0]).toMatchObject({
      code: 'OK',
      limitRemaining: 0,
    });
    expect(h.roundTrips).toHaveLength(trips + 1);
  });

  it('token bucket: one take per limit; the local cache answers until the next token', async () => {
    const h = harness(0.8, new OverLimitCache(1024));
    const bucket = limitOf({ requestsPerUnit: 10, unit: 'SECOND', algorithm: 'token_bucket', burst: 2 });
    expect(await h.limiter.doLimit('d', [h.itemOf([bucket], 2)])).toMatchObject([
      { code: 'OK', limitRemaining: 0, durationUntilResetSec: 1 },
    ]);
    expect(h.ops).toEqual([
      {
        kind: 'take',
        key: 'p:d_k_v_tb',
        unitSeconds: 1,
        nowUs: NOW_MS * 1000,
        costUs: 200_000,
        capacityUs: 200_000,
      },
    ]);
    expect(await h.limiter.doLimit('d', [h.itemOf([bucket])])).toMatchObject([
      { code: 'OVER_LIMIT', limitRemaining: 0 },
    ]);
    h.clock.nowMs += 99;
    expect(await h.limiter.doLimit('d', [h.itemOf([bucket])])).toMatchObject([{ code: 'OVER_LIMIT' }]);
    expect(h.roundTrips).toHaveLength(2);
    h.clock.nowMs += 1;
    expect(await h.limiter.doLimit('d', [h.itemOf([bucket])])).toMatchObject([
      { code: 'OK', limitRemaining: 0 },
    ]);
    expect(h.counts()).toMatchObject({
      total_hits: 5,
      within_limit: 3,
      over_limit: 2,
      over_limit_with_local_cache: 1,
    });
  });

  it('STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT: reads first, then counts the hits only where a limit is over', async () => {
    const h = harness(0.8, undefined, true);
    const full = h.itemOf([limitOf({ requestsPerUnit: 1 })], 1, 'full');
    await h.limiter.doLimit('d', [full]);
    expect(h.roundTrips).toEqual([1, 1]);
    h.ops.length = 0;
    const spare = h.itemOf([limitOf({ requestsPerUnit: 5 })], 1, 'spare');
    const statuses = await h.limiter.doLimit('d', [full, spare]);
    expect(statuses.map((s) => [s.code, s.limitRemaining])).toEqual([
      ['OVER_LIMIT', 0],
      ['OK', 5],
    ]);
    expect(h.ops.map((o) => [o.kind, o.key, o.kind === 'increment' ? o.hits : undefined])).toEqual([
      ['read', 'p:d_k_full_1795348800', undefined],
      ['read', 'p:d_k_spare_1795348800', undefined],
      ['increment', 'p:d_k_full_1795348800', 1],
      ['increment', 'p:d_k_spare_1795348800', 0],
    ]);
    // stats see the hits that were not counted as within the limit, never as near it
    expect(h.counts()).toMatchObject({ total_hits: 3, within_limit: 2, over_limit: 1, near_limit: 1 });
  });

  it('STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT: a limit known over from the local cache holds back the others without reading', async () => {
    const h = harness(0.8, new OverLimitCache(1024), true);
    const blocked = h.itemOf([limitOf({ requestsPerUnit: 0 })], 1, 'blocked');
    await h.limiter.doLimit('d', [blocked]);
    expect(h.roundTrips).toEqual([1, 1]);
    h.ops.length = 0;
    const spare = h.itemOf([limitOf({ requestsPerUnit: 5 })], 1, 'spare');
    const statuses = await h.limiter.doLimit('d', [blocked, spare]);
    expect(statuses.map((s) => [s.code, s.limitRemaining])).toEqual([
      ['OVER_LIMIT', 0],
      ['OK', 5],
    ]);
    expect(h.roundTrips).toEqual([1, 1, 1]);
    expect(h.ops).toEqual([
      { kind: 'increment', key: 'p:d_k_spare_1795348800', hits: 0, ttlSeconds: 60 + 150, unitSeconds: 60 },
    ]);
  });
});
