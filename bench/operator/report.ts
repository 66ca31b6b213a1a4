import { percentile } from '../common/percentile.js';
import { formatAligned, formatMarkdownTable } from '../common/table.js';
import type { OperatorWork } from './operator-metrics.js';

export interface Row {
  scenario: string;
  resources: number;
  instances: number;
  /** Per run, the time until each instance served the change (ms), in instance order. */
  runs: ReadonlyArray<readonly number[]>;
  /** What the operator did during the measured runs. */
  work: OperatorWork;
}

export interface Figures {
  /** Until every instance served the change, per run, ascending. */
  toAll: number[];
  p50: number;
  max: number;
  /** Until the first instance served it, median over runs. */
  firstP50: number;
  /** Mean operator reconcile time per reconcile (ms). */
  reconcileMs: number;
  pushesPerRun: number;
}

export function figures(row: Row): Figures {
  const toAll = row.runs.map((r) => Math.max(...r)).sort((a, b) => a - b);
  const first = row.runs.map((r) => Math.min(...r)).sort((a, b) => a - b);
  return {
    toAll,
    p50: percentile(toAll, 0.5),
    max: toAll.at(-1) ?? Number.NaN,
    firstP50: percentile(first, 0.5),
    reconcileMs: row.work.reconciles > 0 ? row.work.reconcileMs / row.work.reconciles : Number.NaN,
    pushesPerRun: row.work.pushes / row.runs.length,
  };
}

const HEADER = [
  'scenario',
  'resources',
  'instances',
  'runs',
  'all served p50 ms',
  'all served max ms',
  'reconcile ms',
  'pushes/run',
];

function cells(row: Row): string[] {
  const f = figures(row);
  return [
    row.scenario,
    row.resources.toLocaleString('en-US'),
    String(row.instances),
    String(row.runs.length),
    f.p50.toFixed(0),
    f.max.toFixed(0),
    f.reconcileMs.toFixed(1),
    f.pushesPerRun.toFixed(1),
  ];
}

/** An aligned plain-text table; `reconcile ms` is the operator's own mean, from its metrics. */
export function formatTable(rows: readonly Row[]): string {
  return formatAligned([HEADER, ...rows.map(cells)]);
}

/** The same figures as a markdown table, with date and machine, for the operator README. */
export function formatMarkdown(rows: readonly Row[], header: { date: string; machine: string }): string {
  return [
    `Measured ${header.date} on ${header.machine}.`,
    '',
    formatMarkdownTable(HEADER, rows.map(cells)),
  ].join('\n');
}
