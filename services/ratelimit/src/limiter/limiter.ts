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
}

interface Pending {
  item: LimitItem;
  checks: PendingCheck[];
}

interface Decided {
  pending: PendingCheck;
  outcome: Outcome;
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
    const pending = items.map((item): Pending | undefined => {
      if (!item) return undefined;
      item.stats.total_hits.value += item.hitsAddend;
      const base = keyBase(prefixedDomain, item.entries);
      const checks = item.limits.map((limit): PendingCheck => {
        const check: Check = {
          limit,
          keyBase: base,
          nowMs,
          jitterSeconds: Math.floor(this.o.random() * this.o.expirationJitterMaxSeconds),
        };
        const algorithm = ALGORITHMS[limit.algorithm];
        const cacheKey = algorithm.cacheKey(check);
        const cachedUntilMs = this.o.overLimitCache?.overUntilMs(cacheKey, nowMs);
        return { check, algorithm, cacheKey, cachedUntilMs, hits: item.hitsAddend };
      });
      return { item, checks };
    });
    const live = pending.flatMap((p) => p?.checks.filter((c) => c.cachedUntilMs === undefined) ?? []);
    if (this.o.stopIncrementWhenOverLimit) await this.holdBackHits(pending, live);
    const outcomes = await this.run(live, 'apply');
    for (const [c, outcome] of outcomes) {
      if (outcome.over) this.o.overLimitCache?.add(c.cacheKey, { expiresAtMs: outcome.overUntilMs, nowMs });
    }
    return pending.map((p) => (p ? this.decide(p, { outcomes, nowMs }) : NO_LIMIT));
  }

  /**
   * Upstream's `STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT`: when a limit of the request is known over (local
   * cache) or would be exceeded (read first), the other limits count no hits. A counter that another
   * replica raises between the two round trips can still let a hit through or count one.
   */
  private async holdBackHits(
    pending: ReadonlyArray<Pending | undefined>,
    live: PendingCheck[],
  ): Promise<void> {
    const anyCached = pending.some((p) => p?.checks.some((c) => c.cachedUntilMs !== undefined));
    const peeked = anyCached ? new Map<PendingCheck, Outcome>() : await this.run(live, 'peek');
    if (!anyCached && ![...peeked.values()].some((o) => o.over)) return;
    for (const c of live) if (!peeked.get(c)?.over) c.hits = 0;
  }

  /** Every op of `checks` in one store call, and each check's outcome. */
  private async run(checks: readonly PendingCheck[], mode: Mode): Promise<Map<PendingCheck, Outcome>> {
    const ops: CounterOp[] = [];
    const slices = checks.map((c) => {
      const own = c.algorithm.ops(c.check, c.hits, mode);
      ops.push(...own);
      return { start: ops.length - own.length, end: ops.length };
    });
    const answers = ops.length > 0 ? await this.o.store.run(ops) : [];
    return new Map(
      checks.map((c, i) => {
        const s = slices[i] ?? { start: 0, end: 0 };
        return [c, c.algorithm.outcome(c.check, answers.slice(s.start, s.end), { hits: c.hits, mode })];
      }),
    );
  }

  private decide(
    p: Pending,
    at: { outcomes: ReadonlyMap<PendingCheck, Outcome>; nowMs: number },
  ): DescriptorStatus {
    const decided = p.checks.map((c): Decided => {
      const outcome = at.outcomes.get(c);
      if (outcome) return { pending: c, outcome };
      const untilMs = c.cachedUntilMs ?? at.nowMs;
      const resetSec = Math.max(1, Math.ceil((untilMs - at.nowMs) / 1000));
      return {
        pending: c,
        outcome: { over: true, remaining: 0, resetSec, after: 0, max: 0, overUntilMs: untilMs },
      };
    });
    const pick = mostRestrictive(decided);
    const { limit } = pick.pending.check;
    const { outcome } = pick;
    const status = {
      currentLimit: { name: limit.name, requestsPerUnit: limit.requestsPerUnit, unit: limit.unit },
      limitRemaining: outcome.remaining,
      durationUntilResetSec: outcome.resetSec,
    };
    const shadowed = this.record(p.item, pick);
    return { code: outcome.over && !shadowed ? 'OVER_LIMIT' : 'OK', ...status };
  }

  /** Upstream's near/over statistics for the deciding limit; true when shadow mode let an over limit pass. */
  private record(item: LimitItem, pick: Decided): boolean {
    const { hitsAddend, stats } = item;
    const { shadowMode } = pick.pending.check.limit;
    if (pick.pending.cachedUntilMs !== undefined) {
      stats.over_limit.value += hitsAddend;
      stats.over_limit_with_local_cache.value += hitsAddend;
      if (shadowMode) stats.shadow_mode.value += hitsAddend;
      return shadowMode;
    }
    const { after, max, over } = pick.outcome;
    const before = after - pick.pending.hits;
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
    if (after > near) stats.near_limit.value += before >= near ? pick.pending.hits : after - near;
    return false;
  }
}

/** An over-limit outcome if any (the one that frees latest), else the one with least remaining; first wins ties. */
function mostRestrictive(decided: readonly Decided[]): Decided {
  let pick = decided[0] as Decided;
  for (const d of decided.slice(1)) {
    const a = d.outcome;
    const b = pick.outcome;
    if (a.over !== b.over ? a.over : a.over ? a.resetSec > b.resetSec : a.remaining < b.remaining) pick = d;
  }
  return pick;
}
