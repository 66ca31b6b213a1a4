import type { CpuShares } from './cpu-meter.js';
import type { Spread } from './repeat.js';
import type { Summary } from './stats.js';
import { formatAligned, formatMarkdownTable } from './table.js';

export interface Row {
  scenario: string;
  summary: Summary;
  /** Wrong answers, warm-up included. */
  errors: number;
  /** CPU used in the measured window by the load generator, the server's processes and the machine. */
  cpu: CpuShares;
  /** The server processes' resident memory at the end of the measured window, summed; undefined where unknown. */
  serverRssBytes: number | undefined;
  /** How far apart repeated runs were (`summary` holds their medians); undefined for one run. */
  spread?: Spread | undefined;
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

/** A column of both tables: its title and how a row fills it. */
interface Column {
  title: string;
  cell(row: Row): string;
}

/** Throughput of `row` over that of its ceiling; undefined on ceiling rows. */
export function ratioOf(row: Row): number | undefined {
  return row.ceiling ? row.summary.perSecond / row.ceiling.perSecond : undefined;
}

const formatRatio = (row: Row, to: Summary | undefined): string =>
  to ? (row.summary.perSecond / to.perSecond).toFixed(2) : '';

/** Milliseconds with two decimals; `n/a` for a scenario that measures no latency (NaN). */
const formatMs = (ms: number): string => (Number.isNaN(ms) ? 'n/a' : ms.toFixed(2));

const percent = (share: number | undefined): string =>
  share === undefined || Number.isNaN(share) ? 'n/a' : `${Math.round(share * 100)}%`;

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

const formatMiB = (bytes: number | undefined): string =>
  bytes === undefined ? 'n/a' : (bytes / 2 ** 20).toFixed(0);

/**
 * The columns of both tables: rate, latency and errors, the spreads of repeated runs (when a row has
 * them), the ratios, the server's CPU time per call and its resident memory.
 */
function columns(rows: readonly Row[], o: ReportOptions): Column[] {
  const spread = (pick: (s: Spread) => number) => (row: Row) =>
    row.spread ? `±${percent(pick(row.spread) / 2)}` : '';
  return [
    { title: 'scenario', cell: (r) => r.scenario },
    { title: o.rateLabel, cell: (r) => Math.round(r.summary.perSecond).toLocaleString('en-US') },
    ...(rows.some((r) => r.spread) ? [{ title: 'rate spread', cell: spread((s) => s.perSecond) }] : []),
    { title: 'p50 ms', cell: (r) => formatMs(r.summary.p50Ms) },
    { title: 'p99 ms', cell: (r) => formatMs(r.summary.p99Ms) },
    ...(rows.some((r) => r.spread) ? [{ title: 'p99 spread', cell: spread((s) => s.p99Ms) }] : []),
    { title: 'errors', cell: (r) => String(r.errors) },
    { title: 'ours/ceiling', cell: (r) => formatRatio(r, r.ceiling) },
    ...(o.referenceLabel === undefined
      ? []
      : [{ title: o.referenceLabel, cell: (r: Row) => formatRatio(r, r.reference) }]),
    { title: 'server µs/call', cell: serverUsPerCall },
    { title: 'server RSS MiB', cell: (r) => formatMiB(r.serverRssBytes) },
  ];
}

/**
 * An aligned plain-text table, then the CPU (100% = one core) of the load generator, of the server's
 * processes, of everything else and of the whole machine, to tell which side was the bottleneck.
 */
export function formatTable(rows: readonly Row[], o: ReportOptions): string {
  const cols = columns(rows, o);
  return formatAligned([
    [...cols.map((c) => c.title), 'client CPU', 'server CPU', 'other CPU', 'machine CPU'],
    ...rows.map((r) => [
      ...cols.map((c) => c.cell(r)),
      percent(r.cpu.client),
      percent(r.cpu.server),
      percent(otherOf(r.cpu)),
      percent(r.cpu.machine),
    ]),
  ]);
}

/** The same figures but the CPU shares, as a markdown table with date and machine, for the service README. */
export function formatMarkdown(
  rows: readonly Row[],
  o: ReportOptions & { date: string; machine: string },
): string {
  const cols = columns(rows, o);
  return [
    `Measured ${o.date} on ${o.machine}.`,
    '',
    formatMarkdownTable(
      cols.map((c) => c.title),
      rows.map((r) => cols.map((c) => c.cell(r))),
    ),
  ].join('\n');
}
