/** The operator's Prometheus exposition, as text. */
export async function scrapeMetrics(url: string): Promise<string> {
  const res = await fetch(url);
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${url}: HTTP ${res.status}`);
  return text;
}

/** The sample lines (not `#` comments) of the metrics named `names`, labels or not. */
export function sampleLines(text: string, names: readonly string[]): string[] {
  return text
    .split('\n')
    .filter((line) => names.some((n) => line.startsWith(`${n} `) || line.startsWith(`${n}{`)));
}

/** The sum of the samples of metric `name` whose line contains `filter` (e.g. a label), 0 if none. */
export function sampleSum(text: string, name: string, filter = ''): number {
  return sampleLines(text, [name])
    .filter((line) => line.includes(filter))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

/** What the operator did between two scrapes: reconciles, their total time and RateLimitConfig pushes. */
export interface OperatorWork {
  reconciles: number;
  reconcileMs: number;
  pushes: number;
  nacks: number;
}

export const RECONCILE_SUM = 'portcullis_operator_reconcile_duration_seconds_sum';
export const RECONCILE_COUNT = 'portcullis_operator_reconcile_duration_seconds_count';
export const PUSHES = 'portcullis_operator_xds_pushes_total';
export const NACKS = 'portcullis_operator_xds_nacks_total';
const RATE_LIMIT_CONFIG = 'type="RateLimitConfig"';

export function workBetween(before: string, after: string): OperatorWork {
  const delta = (name: string, filter?: string): number =>
    sampleSum(after, name, filter) - sampleSum(before, name, filter);
  return {
    reconciles: delta(RECONCILE_COUNT),
    reconcileMs: delta(RECONCILE_SUM) * 1000,
    pushes: delta(PUSHES, RATE_LIMIT_CONFIG),
    nacks: delta(NACKS),
  };
}

export function addWork(a: OperatorWork, b: OperatorWork): OperatorWork {
  return {
    reconciles: a.reconciles + b.reconciles,
    reconcileMs: a.reconcileMs + b.reconcileMs,
    pushes: a.pushes + b.pushes,
    nacks: a.nacks + b.nacks,
  };
}

export const NO_WORK: OperatorWork = { reconciles: 0, reconcileMs: 0, pushes: 0, nacks: 0 };
