import { cpus, platform, release, totalmem } from 'node:os';
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

export function describeMachine(): string {
  const cores = cpus();
  const model = cores[0]?.model.trim() ?? 'unknown CPU';
  const memGiB = (totalmem() / 2 ** 30).toFixed(1);
  return `${cores.length} × ${model}, ${memGiB} GiB RAM, ${platform()} ${release()}, Node ${process.version}`;
}

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
  const table = [
    [...HEADER, 'client CPU', 'server CPU', 'machine CPU'],
    ...rows.map((r) => [...cells(r), percent(r.cpu.client), percent(r.cpu.server), percent(r.cpu.machine)]),
  ];
  const widths = table[0]!.map((_, c) => Math.max(...table.map((line) => line[c]!.length)));
  return table
    .map((line) =>
      line.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  '),
    )
    .join('\n');
}

/** The same figures as a markdown table, with date and machine, for the service README. */
export function formatMarkdown(rows: readonly Row[], header: { date: string; machine: string }): string {
  const line = (c: readonly string[]): string => `| ${c.join(' | ')} |`;
  return [
    `Measured ${header.date} on ${header.machine}.`,
    '',
    line(HEADER),
    line(HEADER.map((_, c) => (c === 0 ? '---' : '---:'))),
    ...rows.map((r) => line(cells(r))),
  ].join('\n');
}
