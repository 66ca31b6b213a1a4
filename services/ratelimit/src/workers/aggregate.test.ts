import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { aggregateMetrics, combineHealth, combineRules, retireMetrics, sumByName } from './aggregate.js';
import type { MetricsJson } from './messages.js';

/** A worker's registry: a labelled counter, a gauge and a histogram, with these values. */
async function workerMetrics(hits: number, keys: number, seconds: number[]): Promise<MetricsJson> {
  const registry = new Registry();
  registry.setDefaultLabels({ app: 'rl' });
  const registers = [registry];
  new Counter({ name: 'hits', help: 'h', labelNames: ['domain'], registers }).inc({ domain: 'd' }, hits);
  new Gauge({ name: 'keys', help: 'k', registers }).set(keys);
  const h = new Histogram({ name: 'time_seconds', help: 't', buckets: [0.01, 1], registers });
  for (const s of seconds) h.observe(s);
  return registry.getMetricsAsJSON();
}

describe('sumByName', () => {
  it('adds each name across the lists, in first-seen order', () => {
    expect(
      sumByName([
        [
          ['a', 1],
          ['b', 2],
        ],
        [
          ['c', 5],
          ['a', 3],
        ],
      ]),
    ).toEqual([
      ['a', 4],
      ['b', 2],
      ['c', 5],
    ]);
  });
});

describe('aggregateMetrics', () => {
  it('sums counters, gauges and histogram buckets across workers, labels kept', async () => {
    const text = await aggregateMetrics([
      await workerMetrics(3, 2, [0.005]),
      await workerMetrics(4, 5, [0.5]),
    ]);
    expect(text).toContain('hits{domain="d",app="rl"} 7');
    expect(text).toContain('keys{app="rl"} 7');
    expect(text).toContain('time_seconds_bucket{le="0.01",app="rl"} 1');
    expect(text).toContain('time_seconds_bucket{le="1",app="rl"} 2');
    expect(text).toContain('time_seconds_count{app="rl"} 2');
  });
});

describe('retireMetrics', () => {
  it("keeps a gone worker's counters and histograms in the totals, not its gauges", async () => {
    const retired = await retireMetrics([], await workerMetrics(3, 2, [0.005]));
    const text = await aggregateMetrics([retired, await workerMetrics(4, 5, [0.5])]);
    expect(text).toContain('hits{domain="d",app="rl"} 7');
    expect(text).toContain('keys{app="rl"} 5');
    expect(text).toContain('time_seconds_count{app="rl"} 2');
  });
});

describe('combineRules', () => {
  it("is the workers' text when they agree, else each text under the workers that have it", () => {
    expect(
      combineRules(
        new Map([
          [1, 'a.k: 5/hour\n'],
          [2, 'a.k: 5/hour\n'],
        ]),
      ),
    ).toBe('a.k: 5/hour\n');
    expect(
      combineRules(
        new Map([
          [1, 'old\n'],
          [2, 'new\n'],
          [3, 'old\n'],
        ]),
      ),
    ).toBe('# workers 1, 3\nold\n\n# workers 2\nnew\n');
  });
});

describe('combineHealth', () => {
  it('is healthy only when every expected worker answers with every component healthy', () => {
    const up = { sigterm: true, kvstore: true };
    expect(
      combineHealth(
        new Map([
          [1, up],
          [2, up],
        ]),
        2,
      ),
    ).toEqual({
      healthy: true,
      components: { sigterm: true, kvstore: true, workers: true, worker_1: true, worker_2: true },
    });
    expect(
      combineHealth(
        new Map([
          [1, up],
          [2, { sigterm: false, kvstore: true }],
        ]),
        2,
      ),
    ).toEqual({
      healthy: false,
      components: { sigterm: false, kvstore: true, workers: true, worker_1: true, worker_2: false },
    });
    expect(
      combineHealth(
        new Map([
          [1, up],
          [3, undefined],
        ]),
        3,
      ),
    ).toEqual({
      healthy: false,
      components: { sigterm: true, kvstore: true, workers: false, worker_1: true, worker_3: false },
    });
  });
});
