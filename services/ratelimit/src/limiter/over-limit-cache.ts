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
  /** Key → end of its window, ms since the epoch. */
  private readonly expiries = new Map<string, number>();
  /** Keys oldest first, from `head` on: each key of `expiries` once. */
  private order: string[] = [];
  private head = 0;
  private bytes = 0;

  constructor(private readonly maxBytes: number) {}

  /** Until when (ms) `key` is known to be over limit, or undefined when it is not at `nowMs`. */
  overUntilMs(key: string, nowMs: number): number | undefined {
    const expiresAtMs = this.expiries.get(key);
    return expiresAtMs !== undefined && expiresAtMs > nowMs ? expiresAtMs : undefined;
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
      if (this.bytes <= this.maxBytes && (this.expiries.get(oldest) ?? 0) > at.nowMs) break;
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
