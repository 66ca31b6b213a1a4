import type { CpuShares } from './cpu-meter.js';
import type { Summary } from './stats.js';

/** What one measured run of a scenario gives. */
export interface RunFigures {
  summary: Summary;
  cpu: CpuShares;
  /** The server processes' resident memory at the end of the run, summed; undefined where `/proc` is absent. */
  serverRssBytes: number | undefined;
  errorsByLabel: ReadonlyMap<string, number>;
}

/** How far apart the runs of one scenario were, each as (max − min) / median: 0.1 is 10%. */
export interface Spread {
  perSecond: number;
  p99Ms: number;
}

/** The runs of one scenario as one: the median of each figure, with its spread when there were several. */
export interface CombinedFigures extends RunFigures {
  /** Undefined for a single run. */
  spread: Spread | undefined;
}

/** The median of `values`, the mean of the middle two for an even count; NaN when empty. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  if (sorted.length % 2 === 1) return sorted[mid] ?? Number.NaN;
  return ((sorted[mid - 1] ?? Number.NaN) + (sorted[mid] ?? Number.NaN)) / 2;
}

/** (max − min) / median of `values`; NaN when empty or when the median is 0. */
export function spreadOf(values: readonly number[]): number {
  const mid = median(values);
  return mid === 0 ? Number.NaN : (Math.max(...values) - Math.min(...values)) / mid;
}

/** The median of figures some runs may lack: undefined as soon as one run lacks it. */
function medianOfKnown(values: ReadonlyArray<number | undefined>): number | undefined {
  const known = values.filter((v) => v !== undefined);
  return known.length === values.length ? median(known) : undefined;
}

/** Counts by label, added up. */
export function addCounts(maps: Iterable<ReadonlyMap<string, number>>): Map<string, number> {
  const total = new Map<string, number>();
  for (const map of maps) for (const [label, n] of map) total.set(label, (total.get(label) ?? 0) + n);
  return total;
}

/**
 * The runs of one scenario as one figure each: the median rate, p50, p99, CPU shares and RSS; `count` and
 * the errors are the runs' totals. Throws on no run.
 */
export function combineRuns(runs: readonly RunFigures[]): CombinedFigures {
  if (runs.length === 0) throw new Error('combineRuns: no run to combine');
  const of = <T>(pick: (r: RunFigures) => T): T[] => runs.map(pick);
  return {
    summary: {
      count: of((r) => r.summary.count).reduce((a, b) => a + b, 0),
      perSecond: median(of((r) => r.summary.perSecond)),
      p50Ms: median(of((r) => r.summary.p50Ms)),
      p99Ms: median(of((r) => r.summary.p99Ms)),
    },
    cpu: {
      client: medianOfKnown(of((r) => r.cpu.client)),
      server: medianOfKnown(of((r) => r.cpu.server)),
      machine: medianOfKnown(of((r) => r.cpu.machine)),
    },
    serverRssBytes: medianOfKnown(of((r) => r.serverRssBytes)),
    errorsByLabel: addCounts(of((r) => r.errorsByLabel)),
    spread:
      runs.length > 1
        ? {
            perSecond: spreadOf(of((r) => r.summary.perSecond)),
            p99Ms: spreadOf(of((r) => r.summary.p99Ms)),
          }
        : undefined,
  };
}
