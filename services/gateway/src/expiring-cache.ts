export interface ExpiringCacheStats {
  hits: number;
  misses: number;
  /** Live entries dropped to make room at `maxEntries`. */
  evictions: number;
}

export interface ExpiringCache<T> {
  /** The value stored under `key` while it has not expired; a hit makes the entry the last to be evicted. */
  get(key: string): T | undefined;
  /** Keeps `value` until `expiresAtMs` (epoch ms); one already past is not stored. */
  set(key: string, value: T, expiresAtMs: number): void;
  stats(): ExpiringCacheStats;
}

/**
 * Values by key (verified tokens by hash, applications by id), at most `maxEntries` (0: none kept), least
 * recently used dropped first. An entry never outlives the expiry it was stored with.
 */
export function createExpiringCache<T>(o: { maxEntries: number; now: () => number }): ExpiringCache<T> {
  // a Map iterates in insertion order: re-inserting on a hit keeps the least recently used first
  const entries = new Map<string, { value: T; expiresAtMs: number }>();
  const stats: ExpiringCacheStats = { hits: 0, misses: 0, evictions: 0 };

  return {
    get(key) {
      const entry = entries.get(key);
      if (entry === undefined || entry.expiresAtMs <= o.now()) {
        if (entry !== undefined) entries.delete(key);
        stats.misses += 1;
        return undefined;
      }
      entries.delete(key);
      entries.set(key, entry);
      stats.hits += 1;
      return entry.value;
    },
    set(key, value, expiresAtMs) {
      if (o.maxEntries === 0 || expiresAtMs <= o.now()) return;
      entries.delete(key);
      if (entries.size >= o.maxEntries) {
        const oldest = entries.keys().next();
        if (!oldest.done) {
          const gone = entries.get(oldest.value);
          entries.delete(oldest.value);
          if (gone !== undefined && gone.expiresAtMs > o.now()) stats.evictions += 1;
        }
      }
      entries.set(key, { value, expiresAtMs });
    },
    stats: () => ({ ...stats }),
  };
}
