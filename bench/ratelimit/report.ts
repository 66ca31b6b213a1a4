import { formatAligned, formatMarkdownTable } from '../common/table.js';
import type { CpuShares } from './cpu-meter.js';
import type { Summary } from './stats.js';

export interface Row {
  scenario: string;
  summary: Summary;
  /** Wrong answers, warm-up included. */
  errors: number;
  /** CPU used in the measured window by the load generator, the server's processes and the machine. */
  cpu: CpuShares;
  /** The ceiling this row is compared with; absent on ceiling rows. */
  ceiling?: Summary;
}

const HEADER = ['scenario', 'decisions/s', 'p50 ms', 'p99 ms', 'errors', 'ours/ceiling'];

function cells(row: Row): string[] {
  const s = row.summary;
  return [
    row.scenario,
    Math.round(s.perSecond).toLocaleString('en-US'),
    s.p50Ms.toFixed(2),
    s.p99Ms.toFixed(2),
    String(row.errors),
    row.ceiling ? (s.perSecond / row.ceiling.perSecond).toFixed(2) : '',
  ];
}

const percent = (share: number | undefined): string =>
  share === undefined ? 'n/a' : `${Math.round(share * 100)}%`;

/**
 * An aligned plain-text table, then the CPU (100% = one core) of the load generator, of the server's
 * processes (not Redis) and of the whole machine, to tell which side was the bottleneck.
 */
export function formatTable(rows: readonly Row[]): string {
  return formatAligned([
    [...HEADER, 'client CPU', 'server CPU', 'machine CPU'],
    ...rows.map((r) => [...cells(r), percent(r.cpu.client), percent(r.cpu.server), percent(r.cpu.machine)]),
  ]);
}

/** The same figures as a markdown table, with date and machine, for the service README. */
export function formatMarkdown(rows: readonly Row[], header: { date: string; machine: string }): string {
  return [
    `Measured ${header.date} on ${header.machine}.`,
    '',
    formatMarkdownTable(
      HEADER,
      rows.map((r) => cells(r)),
    ),
  ].join('\n');
}
