/**
 * Estimated heap bytes of one entry beyond its key's characters: the string header, the map's slot and
 * hash bucket, and the boxed expiry time.
 */
export const ENTRY_OVERHEAD_BYTES = 80;

/**
 * `LOCAL_CACHE_SIZE_IN_BYTES`: keys known to be over limit until their window ends, so further hits are
 * answered without a backend round trip. Bounded by an estimate of its heap use; when full, the oldest
 * entries go first. Expired entries are dropped as they are met and from the oldest end on each insert.
 */
export class OverLimitCache {
  /** Key → end of its window, ms since the epoch. Insertion order is age order. */
  private readonly expiries = new Map<string, number>();
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  /** Whether `key` is known to be over limit at `nowMs`. */
  has(key: string, nowMs: number): boolean {
    const expiresAtMs = this.expiries.get(key);
    if (expiresAtMs === undefined) return false;
    if (expiresAtMs <= nowMs) {
      this.remove(key);
      return false;
    }
    return true;
  }

  add(key: string, at: { expiresAtMs: number; nowMs: number }): void {
    if (this.expiries.has(key)) return;
    const size = entryBytes(key);
    if (size > this.maxBytes) return;
    this.expiries.set(key, at.expiresAtMs);
    this.bytes += size;
    for (const [oldest, expiresAtMs] of this.expiries) {
      if (this.bytes <= this.maxBytes && expiresAtMs > at.nowMs) break;
      this.remove(oldest);
    }
  }

  get size(): number {
    return this.expiries.size;
  }

  /** The estimated heap use, never above the budget. */
  get estimatedBytes(): number {
    return this.bytes;
  }

  private remove(key: string): void {
    this.expiries.delete(key);
    this.bytes -= entryBytes(key);
  }
}

/** Two bytes a character: an upper bound whatever V8's string representation. */
function entryBytes(key: string): number {
  return key.length * 2 + ENTRY_OVERHEAD_BYTES;
}
