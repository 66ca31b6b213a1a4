import { describe, expect, it } from 'vitest';
import { formatMarkdown, type Row } from './report.js';

const row = (more: Partial<Row> = {}): Row => ({
  scenario: 'gRPC, ours + Redis',
  summary: { count: 3000, perSecond: 1000, p50Ms: 1, p99Ms: 4 },
  errors: 0,
  cpu: { client: 0.1, server: 0.5, machine: 1 },
  serverRssBytes: 96 * 2 ** 20,
  ...more,
});
const options = { rateLabel: 'decisions/s', referenceLabel: 'ours/upstream', date: 'today', machine: 'here' };
const lines = (rows: Row[]): string[] => formatMarkdown(rows, options).split('\n');

describe('formatMarkdown', () => {
  it('shows the server CPU per call and its RSS, and no spread for single runs', () => {
    expect(lines([row()]).slice(2)).toEqual([
      '| scenario | decisions/s | p50 ms | p99 ms | errors | ours/ceiling | ours/upstream | server µs/call | server RSS MiB |',
      '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
      '| gRPC, ours + Redis | 1,000 | 1.00 | 4.00 | 0 |  |  | 500.0 | 96 |',
    ]);
  });

  it('shows ± half the range of repeated runs beside the rate and p99', () => {
    const [, , header, , cells] = lines([
      row({
        spread: { perSecond: 0.1, p99Ms: 0.5 },
        reference: { count: 0, perSecond: 800, p50Ms: 1, p99Ms: 5 },
      }),
    ]);
    expect(header).toContain('| decisions/s | rate spread | p50 ms | p99 ms | p99 spread |');
    expect(cells).toBe(
      '| gRPC, ours + Redis | 1,000 | ±5% | 1.00 | 4.00 | ±25% | 0 |  | 1.25 | 500.0 | 96 |',
    );
  });
});
