import type { CpuShares } from './cpu-meter.js';
import type { Summary } from './stats.js';
import { formatAligned, formatMarkdownTable } from './table.js';

export interface Row {
  scenario: string;
  summary: Summary;
  /** Wrong answers, warm-up included. */
  errors: number;
  /** CPU used in the measured window by the load generator, the server's processes and the machine. */
  cpu: CpuShares;
  /** The ceiling this row is compared with; absent on ceiling rows. */
  ceiling?: Summary;
  /** Another implementation this row is compared with, in the column `ReportOptions.referenceLabel`. */
  reference?: Summary;
}

export interface ReportOptions {
  /** What a call is, as the throughput column's title: `decisions/s`, `requests/s`. */
  rateLabel: string;
  /** The title of a column of throughput ratios to `Row.reference` (`ours/upstream`); no column when unset. */
  referenceLabel?: string;
}

const header = (o: ReportOptions): string[] => [
  'scenario',
  o.rateLabel,
  'p50 ms',
  'p99 ms',
  'errors',
  'ours/ceiling',
  ...(o.referenceLabel === undefined ? [] : [o.referenceLabel]),
];

/** Throughput of `row` over that of its ceiling; undefined on ceiling rows. */
export function ratioOf(row: Row): number | undefined {
  return row.ceiling ? row.summary.perSecond / row.ceiling.perSecond : undefined;
}

const formatRatio = (row: Row, to: Summary | undefined): string =>
  to ? (row.summary.perSecond / to.perSecond).toFixed(2) : '';

/** Milliseconds with two decimals; `n/a` for a scenario that measures no latency (NaN). */
const formatMs = (ms: number): string => (Number.isNaN(ms) ? 'n/a' : ms.toFixed(2));

function cells(row: Row, o: ReportOptions): string[] {
  const s = row.summary;
  return [
    row.scenario,
    Math.round(s.perSecond).toLocaleString('en-US'),
    formatMs(s.p50Ms),
    formatMs(s.p99Ms),
    String(row.errors),
    formatRatio(row, row.ceiling),
    ...(o.referenceLabel === undefined ? [] : [formatRatio(row, row.reference)]),
  ];
}

const percent = (share: number | undefined): string =>
  share === undefined ? 'n/a' : `${Math.round(share * 100)}%`;

/** What the machine spent beyond the load generator and the server: helpers like Redis, or other work. */
function otherOf(cpu: CpuShares): number | undefined {
  return cpu.machine === undefined || cpu.server === undefined || cpu.client === undefined
    ? undefined
    : Math.max(0, cpu.machine - cpu.server - cpu.client);
}

/** Server CPU time per call, in microseconds: a cost that holds when the load generator is the bottleneck. */
function serverUsPerCall(row: Row): string {
  const server = row.cpu.server;
  return server === undefined || row.summary.perSecond === 0
    ? 'n/a'
    : ((server * 1e6) / row.summary.perSecond).toFixed(1);
}

/**
 * An aligned plain-text table, then the server's CPU time per call and the CPU (100% = one core) of the
 * load generator, of the server's processes, of everything else and of the whole machine, to tell which
 * side was the bottleneck.
 */
export function formatTable(rows: readonly Row[], o: ReportOptions): string {
  return formatAligned([
    [...header(o), 'server µs/call', 'client CPU', 'server CPU', 'other CPU', 'machine CPU'],
    ...rows.map((r) => [
      ...cells(r, o),
      serverUsPerCall(r),
      percent(r.cpu.client),
      percent(r.cpu.server),
      percent(otherOf(r.cpu)),
      percent(r.cpu.machine),
    ]),
  ]);
}

/** The same figures as a markdown table, with date and machine, for the service README. */
export function formatMarkdown(
  rows: readonly Row[],
  o: ReportOptions & { date: string; machine: string },
): string {
  return [
    `Measured ${o.date} on ${o.machine}.`,
    '',
    formatMarkdownTable(
      header(o),
      rows.map((r) => cells(r, o)),
    ),
  ].join('\n');
}
