import type { Limit } from '../config/rule-set.js';
import type { CounterIncrement, CounterStore } from '../backends/types.js';
import type { RuleStats } from '../stats.js';
import type { DescriptorStatus, Entry } from '../types.js';
import { cacheKey, windowStart } from './cache-key.js';
import type { OverLimitCache } from './over-limit-cache.js';

/** A descriptor that has a limit to enforce. */
export interface LimitItem {
  entries: readonly Entry[];
  limit: Limit;
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
  /** `LOCAL_CACHE_SIZE_IN_BYTES` > 0: over-limit keys answered without the store until their window ends. */
  overLimitCache?: OverLimitCache | undefined;
}

interface Pending {
  item: LimitItem;
  key: string;
  /** Known over limit from the local cache: no store round trip. */
  cached: boolean;
}

const NO_LIMIT: DescriptorStatus = {
  code: 'OK',
  currentLimit: undefined,
  limitRemaining: 0,
  durationUntilResetSec: undefined,
};

/** Fixed-window counting over a `CounterStore`, with upstream's statuses and statistics. */
export class Limiter {
  constructor(private readonly o: LimiterOptions) {}

  /**
   * One status per item, in order; undefined items (no limit) answer OK. At most one store round trip;
   * none when every limited item is known over limit from the local cache.
   */
  async doLimit(domain: string, items: ReadonlyArray<LimitItem | undefined>): Promise<DescriptorStatus[]> {
    const nowMs = this.o.now();
    const nowSec = Math.floor(nowMs / 1000);
    const prefixedDomain = this.o.cacheKeyPrefix + domain;
    const cache = this.o.overLimitCache;
    const ops: CounterIncrement[] = [];
    const pending = items.map((item): Pending | undefined => {
      if (!item) return undefined;
      item.stats.total_hits.value += item.hitsAddend;
      const { unitSeconds } = item.limit;
      const key = cacheKey(prefixedDomain, item.entries, windowStart(nowSec, unitSeconds));
      const cached = cache?.has(key, nowMs) ?? false;
      if (!cached) {
        ops.push({
          key,
          hits: item.hitsAddend,
          ttlSeconds: unitSeconds + Math.floor(this.o.random() * this.o.expirationJitterMaxSeconds),
          unitSeconds,
        });
      }
      return { item, key, cached };
    });
    const after = ops.length > 0 ? await this.o.store.increment(ops) : [];
    let next = 0;
    return pending.map((p) => {
      if (!p) return NO_LIMIT;
      if (p.cached) return this.decideCached(p.item, nowSec);
      const value = after[next++] ?? 0;
      const { unitSeconds, requestsPerUnit } = p.item.limit;
      // the key names its window, so it can be forgotten when the window ends
      if (cache && value > requestsPerUnit) {
        const windowEndMs = (windowStart(nowSec, unitSeconds) + unitSeconds) * 1000;
        cache.add(p.key, { expiresAtMs: windowEndMs, nowMs });
      }
      return this.decide(p.item, { after: value, nowSec });
    });
  }

  /** A hit on a key the local cache knows is over limit: counted as upstream counts it. */
  private decideCached(item: LimitItem, nowSec: number): DescriptorStatus {
    const { limit, hitsAddend, stats } = item;
    stats.over_limit.value += hitsAddend;
    stats.over_limit_with_local_cache.value += hitsAddend;
    if (limit.shadowMode) stats.shadow_mode.value += hitsAddend;
    return {
      code: limit.shadowMode ? 'OK' : 'OVER_LIMIT',
      limitRemaining: 0,
      ...this.limitAndReset(limit, nowSec),
    };
  }

  private decide(item: LimitItem, at: { after: number; nowSec: number }): DescriptorStatus {
    const { limit, hitsAddend, stats } = item;
    const { after } = at;
    const before = after - hitsAddend;
    const max = limit.requestsPerUnit;
    // float32 arithmetic, as upstream computes it, so near-limit counts match bit for bit
    const near = Math.floor(Math.fround(Math.fround(max) * Math.fround(this.o.nearLimitRatio)));
    const status = this.limitAndReset(limit, at.nowSec);
    if (after > max) {
      if (before >= max) {
        stats.over_limit.value += hitsAddend;
      } else {
        stats.over_limit.value += after - max;
        stats.near_limit.value += max - Math.max(near, before);
      }
      if (limit.shadowMode) {
        stats.shadow_mode.value += before >= max ? hitsAddend : after - max;
        return { code: 'OK', limitRemaining: 0, ...status };
      }
      return { code: 'OVER_LIMIT', limitRemaining: 0, ...status };
    }
    stats.within_limit.value += hitsAddend;
    if (after > near) stats.near_limit.value += before >= near ? hitsAddend : after - near;
    return { code: 'OK', limitRemaining: max - after, ...status };
  }

  private limitAndReset(
    limit: Limit,
    nowSec: number,
  ): Pick<DescriptorStatus, 'currentLimit' | 'durationUntilResetSec'> {
    return {
      currentLimit: { name: limit.name, requestsPerUnit: limit.requestsPerUnit, unit: limit.unit },
      durationUntilResetSec: limit.unitSeconds - (nowSec % limit.unitSeconds),
    };
  }
}
