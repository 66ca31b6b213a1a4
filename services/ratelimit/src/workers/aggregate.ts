import { AggregatorRegistry } from 'prom-client';
import type { MetricsJson } from './messages.js';

// How the workers' views combine into the one the debug port and statsd show. Every statistic of the
// service is a count (gauges too: keys held, connections open, cache lookups), so they add up.

/** The sum of each name across `lists`, in the order names are first seen. */
export function sumByName(lists: Iterable<Iterable<readonly [string, number]>>): Array<[string, number]> {
  const sums = new Map<string, number>();
  for (const list of lists) for (const [name, value] of list) sums.set(name, (sums.get(name) ?? 0) + value);
  return [...sums];
}

/** The Prometheus text of `jsons` combined by each metric's aggregator (a sum unless it says otherwise). */
export function aggregateMetrics(jsons: readonly MetricsJson[]): Promise<string> {
  return AggregatorRegistry.aggregate(jsons.slice()).metrics();
}

/**
 * `retired` plus the counters and histograms of a worker that is gone, so totals never go down when a
 * worker is replaced; its gauges went with it.
 */
export async function retireMetrics(retired: MetricsJson, last: MetricsJson): Promise<MetricsJson> {
  const kept = last.filter((m) => ['counter', 'histogram'].includes(String(m.type)));
  return AggregatorRegistry.aggregate([retired, kept]).getMetricsAsJSON();
}

/**
 * The rules as `/rlconfig` prints them: the workers' text when they agree; while a reload has reached some
 * but not all, each text under a `# workers <ids>` line.
 */
export function combineRules(byWorker: ReadonlyMap<number, string>): string {
  const workersByText = new Map<string, number[]>();
  for (const [id, text] of byWorker) workersByText.set(text, [...(workersByText.get(text) ?? []), id]);
  if (workersByText.size <= 1) return [...workersByText.keys()][0] ?? '';
  return [...workersByText].map(([text, ids]) => `# workers ${ids.join(', ')}\n${text}`).join('\n');
}

/**
 * `/health` of the process: each component healthy only where it is in every worker; `worker_<id>` per
 * running worker, false for one that did not answer; `workers`, whether as many run as should (not while
 * one is being replaced). Healthy when all of them are.
 */
export function combineHealth(
  byWorker: ReadonlyMap<number, Record<string, boolean> | undefined>,
  expected: number,
): { healthy: boolean; components: Record<string, boolean> } {
  const components: Record<string, boolean> = {};
  const workers: Record<string, boolean> = {};
  for (const [id, health] of byWorker) {
    workers[`worker_${id}`] = health !== undefined && Object.values(health).every(Boolean);
    for (const [name, ok] of Object.entries(health ?? {}))
      components[name] = (components[name] ?? true) && ok;
  }
  const all = { ...components, workers: byWorker.size === expected, ...workers };
  return { healthy: Object.values(all).every(Boolean), components: all };
}
