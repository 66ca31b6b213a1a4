import { monitorEventLoopDelay, PerformanceObserver, constants } from 'node:perf_hooks';

/** What `/debug/pprof/runtime` answers; durations in milliseconds, sizes in bytes. */
export interface RuntimeFigures {
  /** Since `startedAt`; `null` until the first sample. */
  eventLoopDelayMs: { min: number; mean: number; p50: number; p90: number; p99: number; max: number } | null;
  /** Collections since `startedAt` by kind (`minor`, `major`, `incremental`, `weakcb`), with their pauses. */
  gc: Record<string, { count: number; totalMs: number }>;
  memoryBytes: { rss: number; heapTotal: number; heapUsed: number; external: number };
  startedAt: string;
}

export interface RuntimeMonitor {
  figures(): RuntimeFigures;
  stop(): void;
}

const GC_KINDS: Readonly<Record<number, string>> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weakcb',
};

const NS_PER_MS = 1e6;
// Node's default; a finer one would cost the loop it measures
const RESOLUTION_MS = 10;

/** Starts sampling this process's event-loop delay and watching its garbage collections, until `stop()`. */
export function startRuntimeMonitor(now: () => Date = () => new Date()): RuntimeMonitor {
  const startedAt = now().toISOString();
  const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  delay.enable();
  const gc: Record<string, { count: number; totalMs: number }> = {};
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      // a 'gc' entry carries its kind in `detail`, which @types/node leaves off PerformanceEntry
      const { detail } = entry as unknown as { detail?: { kind?: number } };
      const kind = GC_KINDS[detail?.kind ?? -1] ?? 'other';
      const seen = (gc[kind] ??= { count: 0, totalMs: 0 });
      seen.count += 1;
      seen.totalMs += entry.duration;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  const ms = (ns: number) => ns / NS_PER_MS;
  return {
    figures() {
      const { rss, heapTotal, heapUsed, external } = process.memoryUsage();
      return {
        eventLoopDelayMs:
          delay.count === 0
            ? null
            : {
                min: ms(delay.min),
                mean: ms(delay.mean),
                p50: ms(delay.percentile(50)),
                p90: ms(delay.percentile(90)),
                p99: ms(delay.percentile(99)),
                max: ms(delay.max),
              },
        gc: structuredClone(gc),
        memoryBytes: { rss, heapTotal, heapUsed, external },
        startedAt,
      };
    },
    stop() {
      delay.disable();
      observer.disconnect();
    },
  };
}
