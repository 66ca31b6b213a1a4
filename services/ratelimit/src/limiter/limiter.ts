import type { Limit } from '../config/rule-set.js';
import type { CounterIncrement, CounterStore } from '../backends/types.js';
import type { RuleStats } from '../stats.js';
import type { DescriptorStatus, Entry } from '../types.js';
import { cacheKey, windowStart } from './cache-key.js';

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

  /** One status per item, in order; undefined items (no limit) answer OK. One store round trip. */
  async doLimit(domain: string, items: ReadonlyArray<LimitItem | undefined>): Promise<DescriptorStatus[]> {
    const nowSec = Math.floor(this.o.now() / 1000);
    const prefixedDomain = this.o.cacheKeyPrefix + domain;
    const ops: CounterIncrement[] = [];
    for (const item of items) {
      if (!item) continue;
      item.stats.total_hits.value += item.hitsAddend;
      const { unitSeconds } = item.limit;
      ops.push({
        key: cacheKey(prefixedDomain, item.entries, windowStart(nowSec, unitSeconds)),
        hits: item.hitsAddend,
        ttlSeconds: unitSeconds + Math.floor(this.o.random() * this.o.expirationJitterMaxSeconds),
      });
    }
    const after = ops.length > 0 ? await this.o.store.increment(ops) : [];
    let next = 0;
    return items.map((item) => {
      if (!item) return NO_LIMIT;
      const value = after[next++] ?? 0;
      return this.decide(item, { after: value, nowSec });
    });
  }

  private decide(item: LimitItem, at: { after: number; nowSec: number }): DescriptorStatus {
    const { limit, hitsAddend, stats } = item;
    const { after } = at;
    const before = after - hitsAddend;
    const max = limit.requestsPerUnit;
    // float32 arithmetic, as upstream computes it, so near-limit counts match bit for bit
    const near = Math.floor(Math.fround(Math.fround(max) * Math.fround(this.o.nearLimitRatio)));
    const status = {
      currentLimit: { name: limit.name, requestsPerUnit: max, unit: limit.unit },
      durationUntilResetSec: limit.unitSeconds - (at.nowSec % limit.unitSeconds),
    };
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
}
