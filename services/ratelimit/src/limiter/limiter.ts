import type { RateLimitAlgorithm } from '@portcullis/config';
import type { CounterOp, CounterStore } from '../backends/types.js';
import type { Limit } from '../config/rule-set.js';
import type { RuleStats } from '../stats/stats.js';
import type { DescriptorStatus, Entry } from '../types.js';
import type { Algorithm, Check, Mode, Outcome } from './algorithm.js';
import { keyBase } from './cache-key.js';
import { fixedWindow } from './fixed-window.js';
import type { OverLimitCache } from './over-limit-cache.js';
import { slidingWindow } from './sliding-window.js';
import { tokenBucket } from './token-bucket.js';

/** A descriptor that has limits to enforce. */
export interface LimitItem {
  entries: readonly Entry[];
  /** At least one: the rule's `rate_limit`, or every entry of its `rate_limits`. */
  limits: readonly Limit[];
  hitsAddend: number;
  stats: RuleStats;
}

export interface LimiterOptions {
  store: CounterStore;
  /** Milliseconds since the epoch. */
  now: () => number;
  nearLimitRatio: number;
  cacheKeyPrefix: string;
  /** Keys expire one unit after their last hit plus up to this many seconds, spreading expiry load. */
  expirationJitterMaxSeconds: number;
  random: () => number;
  /** `LOCAL_CACHE_SIZE_IN_BYTES` > 0: over-limit keys answered without the store until they may pass. */
  overLimitCache?: OverLimitCache | undefined;
  /**
   * `STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT`: a first round trip reads every counter; when a limit would
   * be exceeded only the limits over count the hits.
   */
  stopIncrementWhenOverLimit?: boolean | undefined;
}

const ALGORITHMS: Readonly<Record<RateLimitAlgorithm, Algorithm>> = {
  fixed_window: fixedWindow,
  sliding_window: slidingWindow,
  token_bucket: tokenBucket,
};

interface PendingCheck {
  check: Check;
  algorithm: Algorithm;
  cacheKey: string;
  /** Known over limit from the local cache until then (ms): no store op. */
  cachedUntilMs: number | undefined;
  /** Hits this request counts against the limit (fewer than the item's only when stopping increments). */
  hits: number;
  /** What the store answered; unset while it has not, and for a limit the local cache answered. */
  outcome: Outcome | undefined;
}

interface Pending {
  item: LimitItem;
  checks: PendingCheck[];
}

const NO_LIMIT: DescriptorStatus = {
  code: 'OK',
  currentLimit: undefined,
  limitRemaining: 0,
  durationUntilResetSec: undefined,
};

/**
 * Counts hits over a `CounterStore` with each limit's algorithm and answers upstream's statuses and
 * statistics. A descriptor with several limits counts against all of them and answers with the most
 * restrictive: an over-limit one if any (the one that frees latest), else the one with least remaining.
 */
export class Limiter {
  constructor(private readonly o: LimiterOptions) {}

  /**
   * One status per item, in order; undefined items (no limit) answer OK. One store round trip (two with
   * `stopIncrementWhenOverLimit`); none when every limit is known over from the local cache.
   */
  async doLimit(domain: string, items: ReadonlyArray<LimitItem | undefined>): Promise<DescriptorStatus[]> {
    const nowMs = this.o.now();
    const prefixedDomain = this.o.cacheKeyPrefix + domain;
    const cache = this.o.overLimitCache;
    const pending: Array<Pending | undefined> = [];
    const live: PendingCheck[] = [];
    let anyCached = false;
    for (const item of items) {
      if (!item) {
        pending.push(undefined);
        continue;
      }
      item.stats.total_hits.value += item.hitsAddend;
      const base = keyBase(prefixedDomain, item.entries);
      const checks: PendingCheck[] = [];
      for (const limit of item.limits) {
        const check: Check = {
          limit,
          keyBase: base,
          nowMs,
          jitterSeconds: Math.floor(this.o.random() * this.o.expirationJitterMaxSeconds),
        };
        const algorithm = ALGORITHMS[limit.algorithm];
        const cacheKey = algorithm.cacheKey(check);
        const cachedUntilMs = cache?.overUntilMs(cacheKey, nowMs);
        const c = { check, algorithm, cacheKey, cachedUntilMs, hits: item.hitsAddend, outcome: undefined };
        checks.push(c);
        if (cachedUntilMs === undefined) live.push(c);
        else anyCached = true;
      }
      pending.push({ item, checks });
    }
    if (this.o.stopIncrementWhenOverLimit) await this.holdBackHits(live, anyCached);
    const outcomes = await this.run(live, 'apply');
    for (let i = 0; i < live.length; i++) {
      const c = live[i] as PendingCheck;
      const outcome = outcomes[i] as Outcome;
      c.outcome = outcome;
      if (outcome.over) cache?.add(c.cacheKey, { expiresAtMs: outcome.overUntilMs, nowMs });
    }
    const statuses: DescriptorStatus[] = [];
    for (const p of pending) statuses.push(p ? this.decide(p, nowMs) : NO_LIMIT);
    return statuses;
  }

  /**
   * Upstream's `STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT`: when a limit of the request is known over (local
   * cache) or would be exceeded (read first), the other limits count no hits. A counter that another
   * replica raises between the two round trips can still let a hit through or count one.
   */
  private async holdBackHits(live: readonly PendingCheck[], anyCached: boolean): Promise<void> {
    const peeked = anyCached ? [] : await this.run(live, 'peek');
    if (!anyCached && !peeked.some((o) => o.over)) return;
    live.forEach((c, i) => {
      if (!peeked[i]?.over) c.hits = 0;
    });
  }

  /** Every op of `checks` in one store call, and each check's outcome, in order. */
  private async run(checks: readonly PendingCheck[], mode: Mode): Promise<Outcome[]> {
    if (checks.length === 0) return [];
    const ops: CounterOp[] = [];
    const ends: number[] = [];
    for (const c of checks) {
      for (const op of c.algorithm.ops(c.check, c.hits, mode)) ops.push(op);
      ends.push(ops.length);
    }
    const answers = await this.o.store.run(ops);
    const outcomes: Outcome[] = [];
    let start = 0;
    for (let i = 0; i < checks.length; i++) {
      const c = checks[i] as PendingCheck;
      const end = ends[i] as number;
      outcomes.push(c.algorithm.outcome(c.check, answers.slice(start, end), { hits: c.hits, mode }));
      start = end;
    }
    return outcomes;
  }

  private decide(p: Pending, nowMs: number): DescriptorStatus {
    let pick: PendingCheck | undefined;
    let picked: Outcome | undefined;
    for (const c of p.checks) {
      const outcome = c.outcome ?? cachedOutcome(c, nowMs);
      if (!picked || moreRestrictive(outcome, picked)) {
        pick = c;
        picked = outcome;
      }
    }
    const { limit } = (pick as PendingCheck).check;
    const outcome = picked as Outcome;
    const shadowed = this.record(p.item, pick as PendingCheck, outcome);
    return {
      code: outcome.over && !shadowed ? 'OVER_LIMIT' : 'OK',
      currentLimit: { name: limit.name, requestsPerUnit: limit.requestsPerUnit, unit: limit.unit },
      limitRemaining: outcome.remaining,
      durationUntilResetSec: outcome.resetSec,
    };
  }

  /** Upstream's near/over statistics for the deciding limit; true when shadow mode let an over limit pass. */
  private record(item: LimitItem, pick: PendingCheck, outcome: Outcome): boolean {
    const { hitsAddend, stats } = item;
    const { shadowMode } = pick.check.limit;
    if (pick.cachedUntilMs !== undefined) {
      stats.over_limit.value += hitsAddend;
      stats.over_limit_with_local_cache.value += hitsAddend;
      if (shadowMode) stats.shadow_mode.value += hitsAddend;
      return shadowMode;
    }
    const { after, max, over } = outcome;
    const before = after - pick.hits;
    // float32 arithmetic, as upstream computes it, so near-limit counts match bit for bit
    const near = Math.floor(Math.fround(Math.fround(max) * Math.fround(this.o.nearLimitRatio)));
    if (over) {
      if (before >= max) {
        stats.over_limit.value += hitsAddend;
      } else {
        stats.over_limit.value += after - max;
        stats.near_limit.value += max - Math.max(near, before);
      }
      if (shadowMode) stats.shadow_mode.value += before >= max ? hitsAddend : after - max;
      return shadowMode;
    }
    stats.within_limit.value += hitsAddend;
    if (after > near) stats.near_limit.value += before >= near ? pick.hits : after - near;
    return false;
  }
}

/** What a limit the local cache knows over answers: over until the cached time, at least a second. */
function cachedOutcome(c: PendingCheck, nowMs: number): Outcome {
  const untilMs = c.cachedUntilMs ?? nowMs;
  const resetSec = Math.max(1, Math.ceil((untilMs - nowMs) / 1000));
  return { over: true, remaining: 0, resetSec, after: 0, max: 0, overUntilMs: untilMs };
}

/**
 * Whether `a` is more restrictive than `b`: over limit when `b` is not, freeing later when both are over,
 * less remaining when neither is; the first of equals stays.
 */
function moreRestrictive(a: Outcome, b: Outcome): boolean {
  return a.over !== b.over ? a.over : a.over ? a.resetSec > b.resetSec : a.remaining < b.remaining;
}
