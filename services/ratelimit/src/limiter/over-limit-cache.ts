import type { Stats } from '../stats/stats.js';

/**
 * Estimated heap bytes of one entry beyond its key's characters: the string header, the map's slot and
 * hash bucket, the boxed expiry time and the age queue's slot.
 */
export const ENTRY_OVERHEAD_BYTES = 80;

/**
 * `LOCAL_CACHE_SIZE_IN_BYTES`: keys known to be over limit until their window ends, so further hits are
 * answered without a backend round trip. Bounded by an estimate of its heap use; when full, the oldest
 * entries go first, and expired ones are dropped from the old end on each insert.
 */
export class OverLimitCache {
  /** Since start: lookups, those that found a key over limit, entries dropped at expiry or to make room. */
  readonly counts = { lookups: 0, hits: 0, expired: 0, evacuated: 0 };
  /** Key → end of its window, ms since the epoch. */
  private readonly expiries = new Map<string, number>();
  /** Keys oldest first, from `head` on: each key of `expiries` once. */
  private order: string[] = [];
  private head = 0;
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  /** Until when (ms) `key` is known to be over limit, or undefined when it is not at `nowMs`. */
  overUntilMs(key: string, nowMs: number): number | undefined {
    this.counts.lookups++;
    const expiresAtMs = this.expiries.get(key);
    if (expiresAtMs === undefined || expiresAtMs <= nowMs) return undefined;
    this.counts.hits++;
    return expiresAtMs;
  }

  add(key: string, at: { expiresAtMs: number; nowMs: number }): void {
    const known = this.expiries.get(key);
    if (known !== undefined) {
      if (known <= at.nowMs) this.expiries.set(key, at.expiresAtMs);
      return;
    }
    const size = entryBytes(key);
    if (size > this.maxBytes) return;
    this.expiries.set(key, at.expiresAtMs);
    this.order.push(key);
    this.bytes += size;
    while (this.head < this.order.length) {
      const oldest = this.order[this.head] as string;
      const live = (this.expiries.get(oldest) ?? 0) > at.nowMs;
      if (this.bytes <= this.maxBytes && live) break;
      if (live) this.counts.evacuated++;
      else this.counts.expired++;
      this.evictOldest(oldest);
    }
  }

  get size(): number {
    return this.expiries.size;
  }

  /** The estimated heap use, never above the budget. */
  get estimatedBytes(): number {
    return this.bytes;
  }

  private evictOldest(key: string): void {
    this.expiries.delete(key);
    this.bytes -= entryBytes(key);
    this.head++;
    // drop the consumed front of the queue now and then, so it costs O(1) per key overall
    if (this.head > 1024 && this.head * 2 > this.order.length) {
      this.order = this.order.slice(this.head);
      this.head = 0;
    }
  }
}

/** Two bytes a character: an upper bound whatever V8's string representation. */
function entryBytes(key: string): number {
  return key.length * 2 + ENTRY_OVERHEAD_BYTES;
}

/** Upstream's `ratelimit.localcache.*` gauges (freecache's figures, as far as this cache has them). */
export function reportLocalCache(stats: Stats, cache: OverLimitCache): void {
  const c = cache.counts;
  stats.gauge('ratelimit.localcache.lookupCount', () => c.lookups);
  stats.gauge('ratelimit.localcache.hitCount', () => c.hits);
  stats.gauge('ratelimit.localcache.missCount', () => c.lookups - c.hits);
  stats.gauge('ratelimit.localcache.entryCount', () => cache.size);
  stats.gauge('ratelimit.localcache.expiredCount', () => c.expired);
  stats.gauge('ratelimit.localcache.evacuateCount', () => c.evacuated);
}
