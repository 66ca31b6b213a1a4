import { percentile } from '../common/percentile.js';

export interface Summary {
  /** Answers counted during the measured window (all of them, for repeated runs), right or wrong. */
  count: number;
  perSecond: number;
  /** NaN when not measured. */
  p50Ms: number;
  p99Ms: number;
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
