import {
  RULE_STATS,
  countsOf,
  type Counts,
  type DomainCounts,
  type InstanceReading,
} from './instance-reading.js';

interface Bucket {
  atMs: number;
  hits: DomainCounts;
}

/** A domain's counts carried from an earlier leader's report (`carry`). */
interface Carried {
  /** The report's `collectedAt`: the bucket its counts went into. */
  atMs: number;
  /** The report's `from`. */
  fromMs: number;
  /** What the report itself had left uncounted. */
  uncountedMs: number;
  /** When they were carried: the hits from `atMs` until then were counted by nobody. */
  carriedMs: number;
}

/**
 * The hits of each rule over a sliding window, from counter readings of many instances. Each reading's
 * increase since the same instance's previous one goes into a time bucket (`bucketMs` wide); buckets that
 * leave the window are subtracted from the running totals. As Prometheus' `increase()`: a counter that went
 * down started again from zero. Besides, an instance whose start time changed restarted: all its counts are
 * new. An instance seen for the first time counts from its start when that lies within the window (a new
 * pod), and from this reading otherwise. An instance that goes away keeps its last reading for a window, so
 * coming back (not ready for a while) does not count its hits twice.
 *
 * A domain can start from an earlier leader's report (`carry`): its counts go into the bucket of that
 * report's time and leave with it. An instance first seen afterwards counts from its start for that domain
 * only if it started after that report (the earlier leader never saw it); else its first reading is a
 * baseline, and its hits between the report and that reading are not counted (`uncountedMs`).
 */
export class HitWindow {
  private buckets: Bucket[] = [];
  private readonly totalsByDomain: DomainCounts = new Map();
  private readonly last = new Map<string, { reading: InstanceReading; seenMs: number }>();
  private firstMs: number | undefined;
  private readonly carried = new Map<string, Carried>();

  constructor(private readonly o: { windowMs: number; bucketMs: number }) {}

  record(instance: string, reading: InstanceReading, nowMs: number): void {
    this.firstMs ??= nowMs;
    const before = this.last.get(instance);
    this.last.set(instance, { reading, seenMs: nowMs });
    const started = reading.startedAtMs;
    if (!before) {
      if (started !== undefined && started >= nowMs - this.o.windowMs)
        this.add(Math.min(started, nowMs), this.notCarriedSince(started, reading.rules), undefined);
      return;
    }
    if (started !== before.reading.startedAtMs) {
      // started again after the last reading; clocks may disagree, so it is placed between that and now
      this.add(Math.min(Math.max(started ?? nowMs, before.seenMs), nowMs), reading.rules, undefined);
      return;
    }
    this.add(nowMs, reading.rules, before.reading.rules);
  }

  /**
   * Starts `domain` from an earlier report: `rules` (counts by rule key) collected at `atMs`, counted from
   * `fromMs`, with `uncountedMs` of it missing. Ignored for a domain that has counts or was carried already,
   * and for a report the window has left. Call it before the first reading.
   */
  carry(
    domain: string,
    rules: ReadonlyMap<string, Counts>,
    o: { atMs: number; fromMs: number; uncountedMs: number; nowMs: number },
  ): void {
    const atMs = Math.min(o.atMs, o.nowMs);
    if (this.carried.has(domain) || this.totalsByDomain.has(domain) || !this.inWindow(atMs, o.nowMs)) return;
    this.carried.set(domain, {
      atMs,
      fromMs: Math.min(o.fromMs, atMs),
      uncountedMs: o.uncountedMs,
      carriedMs: o.nowMs,
    });
    this.add(atMs, new Map([[domain, new Map(rules)]]), undefined);
  }

  /** Forgets instances not in `present` that have been gone for a whole window. */
  forget(present: ReadonlySet<string>, nowMs: number): void {
    for (const [instance, { seenMs }] of this.last)
      if (!present.has(instance) && seenMs < nowMs - this.o.windowMs) this.last.delete(instance);
  }

  /** Each rule's hits within the window ending at `nowMs`; rules without hits are left out. */
  totals(nowMs: number): DomainCounts {
    const edge = nowMs - this.o.windowMs;
    while (this.buckets[0] && this.buckets[0].atMs + this.o.bucketMs <= edge) {
      const gone = this.buckets.shift() as Bucket;
      forEachCount(gone.hits, (domain, descriptor, counts) => {
        const byDescriptor = this.totalsByDomain.get(domain);
        const total = byDescriptor?.get(descriptor);
        if (!byDescriptor || !total) return;
        for (let i = 0; i < total.length; i++) total[i] = (total[i] ?? 0) - (counts[i] ?? 0);
        if (total.every((n) => n === 0)) byDescriptor.delete(descriptor);
        if (byDescriptor.size === 0) this.totalsByDomain.delete(domain);
      });
    }
    for (const [domain, c] of this.carried)
      if (!this.inWindow(c.atMs, nowMs) && c.carriedMs <= edge) this.carried.delete(domain);
    return this.totalsByDomain;
  }

  /**
   * Where a domain's data starts: the first reading, or the window's start once it has been filled; while
   * carried counts are in the window, their report's `from` (they are not split in time, so it may lie
   * before the window's start).
   */
  coveredFromMs(domain: string, nowMs: number): number {
    const own = Math.max(this.firstMs ?? nowMs, nowMs - this.o.windowMs);
    const c = this.carried.get(domain);
    return c && this.inWindow(c.atMs, nowMs) ? Math.min(c.fromMs, own) : own;
  }

  /**
   * How much of a domain's window no leader counted: from the carried report's time to the carry, while
   * that lies in the window, and what the carried report had missing while its counts are in the window.
   */
  uncountedMs(domain: string, nowMs: number): number {
    const c = this.carried.get(domain);
    if (!c) return 0;
    const gap = Math.max(0, c.carriedMs - Math.max(c.atMs, nowMs - this.o.windowMs));
    return gap + (this.inWindow(c.atMs, nowMs) ? c.uncountedMs : 0);
  }

  /** Drops everything (a replica that stops leading stops reading). */
  clear(): void {
    this.buckets = [];
    this.totalsByDomain.clear();
    this.last.clear();
    this.carried.clear();
    this.firstMs = undefined;
  }

  /** Whether the bucket of `atMs` is still in the window ending at `nowMs` (as `totals` drops them). */
  private inWindow(atMs: number, nowMs: number): boolean {
    return Math.floor(atMs / this.o.bucketMs) * this.o.bucketMs + this.o.bucketMs > nowMs - this.o.windowMs;
  }

  /** `rules` without the domains carried from a report collected at or after `startedMs`. */
  private notCarriedSince(startedMs: number, rules: DomainCounts): DomainCounts {
    if (this.carried.size === 0) return rules;
    return new Map(
      [...rules].filter(([domain]) => !((this.carried.get(domain)?.atMs ?? -Infinity) >= startedMs)),
    );
  }

  /** Adds `rules` minus `previous` (per counter; all of it where a counter went down) at `atMs`. */
  private add(atMs: number, rules: DomainCounts, previous: DomainCounts | undefined): void {
    let bucket: DomainCounts | undefined;
    forEachCount(rules, (domain, descriptor, counts) => {
      const before = previous?.get(domain)?.get(descriptor);
      const delta = counts.map((n, i) => {
        const b = before?.[i] ?? 0;
        return n >= b ? n - b : n;
      });
      if (delta.every((n) => n === 0)) return;
      bucket ??= this.bucketAt(atMs);
      addInto(countsOf(bucket, domain, descriptor), delta);
      addInto(countsOf(this.totalsByDomain, domain, descriptor), delta);
    });
  }

  private bucketAt(atMs: number): DomainCounts {
    const start = Math.floor(atMs / this.o.bucketMs) * this.o.bucketMs;
    let i = this.buckets.length;
    while (i > 0 && (this.buckets[i - 1] as Bucket).atMs > start) i--;
    const found = this.buckets[i - 1];
    if (found?.atMs === start) return found.hits;
    const bucket: Bucket = { atMs: start, hits: new Map() };
    this.buckets.splice(i, 0, bucket);
    return bucket.hits;
  }
}

function forEachCount(
  byDomain: DomainCounts,
  fn: (domain: string, descriptor: string, counts: Counts) => void,
): void {
  for (const [domain, byDescriptor] of byDomain)
    for (const [descriptor, counts] of byDescriptor) fn(domain, descriptor, counts);
}

function addInto(counts: Counts, delta: Counts): void {
  for (let i = 0; i < RULE_STATS.length; i++) counts[i] = (counts[i] ?? 0) + (delta[i] ?? 0);
}
