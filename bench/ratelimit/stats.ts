export interface Summary {
  /** Answers counted during the measured window, right or wrong. */
  count: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
}

/** Nearest-rank percentile of `sorted` (ascending); `q` in [0, 1]. */
export function percentile(sorted: Float64Array, q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[rank] ?? Number.NaN;
}

/** Throughput over `durationMs` and latency percentiles of `latenciesMs` (the array is sorted in place). */
export function summarize(latenciesMs: Float64Array, durationMs: number): Summary {
  latenciesMs.sort();
  return {
    count: latenciesMs.length,
    perSecond: (latenciesMs.length * 1000) / durationMs,
    p50Ms: percentile(latenciesMs, 0.5),
    p99Ms: percentile(latenciesMs, 0.99),
  };
}
