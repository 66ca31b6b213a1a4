import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseRateLimitConfig, type ShadowReport } from '@portcullis/config';
import { quietLog as log, waitFor } from '@portcullis/testing';
import { Counter, Gauge, Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Resource } from '../src/resources.js';
import { createShadowReportMetrics } from '../src/shadow-report/report-metrics.js';
import type { ShadowReportSink } from '../src/shadow-report/report-sink.js';
import { ShadowReporter } from '../src/shadow-report/shadow-reporter.js';

const resource: Resource = {
  apiVersion: 'portcullis.dev/v1alpha1',
  kind: 'RateLimitConfig',
  metadata: {
    name: 'web',
    namespace: 'team',
    uid: 'u1',
    generation: 1,
    creationTimestamp: '2026-11-27T00:00:00Z',
  },
  spec: {},
};
const config = parseRateLimitConfig('team/web', {
  domain: 'web',
  descriptors: [{ key: 'path', shadow_mode: true, rate_limit: { unit: 'minute', requests_per_unit: 1 } }],
});

/** An instance's metrics endpoint as the ratelimit exports them: one rule's counters and its start time. */
function instanceMetrics(startedAtMs: number): { registry: Registry; hit(over: boolean): void } {
  const registry = new Registry();
  new Gauge({ name: 'process_start_time_seconds', help: 's', registers: [registry] }).set(startedAtMs / 1000);
  const stat = (s: string): Counter<'domain' | 'descriptor'> =>
    new Counter({
      name: `ratelimit_service_rate_limit_${s}`,
      help: s,
      labelNames: ['domain', 'descriptor'],
      registers: [registry],
    });
  const [total, over, within, shadow] = [
    stat('total_hits'),
    stat('over_limit'),
    stat('within_limit'),
    stat('shadow_mode'),
  ];
  const labels = { domain: 'web', descriptor: 'path' };
  return {
    registry,
    hit: (isOver) => {
      total.inc(labels);
      (isOver ? over : within).inc(labels);
      if (isOver) shadow.inc(labels);
    },
  };
}

describe('ShadowReporter', () => {
  let server: Server;
  let url = '';
  let instance: ReturnType<typeof instanceMetrics>;
  let leader = true;
  /** Rounds begun: each asks first whether this replica leads. */
  let rounds = 0;
  let reporter: ShadowReporter;
  /** The resource as the store has it now (its status), where the served one has none. */
  let stored: Resource | undefined;
  let metrics: ReturnType<typeof createShadowReportMetrics>;
  const written: ShadowReport[] = [];
  const sink: ShadowReportSink = {
    write: (_r, report) => {
      written.push(report);
      return Promise.resolve(true);
    },
  };

  beforeEach(async () => {
    // a minute ago: within the window
    instance = instanceMetrics(Date.now() - 60_000);
    stored = undefined;
    server = createServer((_req, res) => void instance.registry.metrics().then((text) => res.end(text)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
    written.length = 0;
    leader = true;
    rounds = 0;
    metrics = createShadowReportMetrics(new Registry());
    reporter = new ShadowReporter({
      settings: {
        intervalMs: 20,
        windowMs: 600_000,
        maxRules: 20,
        timeoutMs: 1000,
        maxBytes: 65_536,
        endpoints: { name: 'ratelimit', portName: 'debug' },
        urls: [url],
      },
      targets: () => [url],
      served: () => [{ resource, config }],
      resources: {
        get: (kind, name) => (kind === 'RateLimitConfig' && name === 'team/web' ? stored : undefined),
      },
      isLeader: () => {
        rounds++;
        return leader;
      },
      sink,
      metrics,
      log,
    });
  });
  afterEach(async () => {
    await reporter.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const scrapes = async (): Promise<number> =>
    (await metrics.scrapes.get()).values.find((v) => v.labels.result === 'ok')?.value ?? 0;
  /** Waits for a few more scrapes of the instance. */
  const someRounds = async (): Promise<void> => {
    const before = await scrapes();
    await waitFor(scrapes, (n) => n >= before + 3, { timeoutMs: 10_000 });
  };
  const last = (): ShadowReport | undefined => written.at(-1);
  const lastWhen = (ok: (r: ShadowReport | undefined) => boolean): Promise<unknown> =>
    waitFor(() => Promise.resolve(last()), ok, { timeoutMs: 10_000 });
  const totalOf = (r: ShadowReport | undefined): number | undefined => r?.rules[0]?.totalHits;

  it('writes a report when its counts move by more than 10%, not for each scrape', async () => {
    reporter.start();
    for (let i = 0; i < 20; i++) instance.hit(i >= 16);
    await lastWhen((r) => totalOf(r) === 20);
    expect(last()?.rules[0]).toEqual({
      key: 'path',
      shadowMode: true,
      totalHits: 20,
      overLimit: 4,
      nearLimit: 0,
      withinLimit: 16,
      shadowModeHits: 4,
    });
    const writes = written.length;
    // 20 → 21 hits, 16 → 17 within: less than 10%
    instance.hit(false);
    await someRounds();
    expect(written.length).toBe(writes);
    instance.hit(true);
    instance.hit(true);
    await lastWhen((r) => r?.shadowModeHits === 6);
    expect(totalOf(last())).toBe(23);
  });

  it('neither scrapes nor writes while not leading, and starts its counts over when leading again', async () => {
    leader = false;
    reporter.start();
    instance.hit(true);
    // rounds run one after another: at the third one's start, two have ended without a scrape
    await waitFor(
      () => Promise.resolve(rounds),
      (n) => n >= 3,
      { timeoutMs: 10_000 },
    );
    expect(await scrapes()).toBe(0);
    expect(written).toEqual([]);
    leader = true;
    // the instance started within the window: all its hits count
    await lastWhen((r) => totalOf(r) === 1);
  });

  /** A report in the status as an earlier leader wrote it: 30 hits, 10 of them shadow-mode, `ago` ms ago. */
  const iso = (ms: number): string => new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
  /** A report in the status as an earlier leader wrote it: 30 hits, 10 of them shadow-mode, `ago` ms ago. */
  const earlierReport = (agoMs: number): ShadowReport => {
    const at = Date.now() - agoMs;
    return {
      domain: 'web',
      windowSeconds: 600,
      from: iso(at - 300_000),
      collectedAt: iso(at),
      shadowModeHits: 10,
      rules: [
        {
          key: 'path',
          shadowMode: true,
          totalHits: 30,
          overLimit: 10,
          nearLimit: 0,
          withinLimit: 20,
          shadowModeHits: 10,
        },
      ],
      truncated: 0,
    };
  };

  it('carries the report in the status forward, adds its own hits on top, and does not write it back unchanged', async () => {
    // the instance started before that report: its hits so far were the earlier leader's to count
    for (let i = 0; i < 5; i++) instance.hit(true);
    stored = { ...resource, status: { shadowReport: earlierReport(3000) } };
    reporter.start();
    await someRounds();
    expect(written).toEqual([]);
    for (let i = 0; i < 10; i++) instance.hit(true);
    await lastWhen((r) => totalOf(r) === 40);
    expect(last()?.rules[0]).toMatchObject({
      totalHits: 40,
      overLimit: 20,
      withinLimit: 20,
      shadowModeHits: 20,
    });
    // the earlier report's start, and the seconds between it and this leader's first scrape
    expect(last()?.from).toBe(stored.status?.shadowReport?.from);
    expect(last()?.uncountedSeconds).toBeGreaterThanOrEqual(3);
  });

  it('carries nothing from a report older than the window: counts start with its own scrapes', async () => {
    for (let i = 0; i < 5; i++) instance.hit(true);
    const earlier = earlierReport(700_000);
    stored = { ...resource, status: { shadowReport: earlier } };
    reporter.start();
    // the instance started within the window and there is nothing carried: its hits since its start count
    await lastWhen((r) => totalOf(r) === 5);
    expect(last()).not.toHaveProperty('uncountedSeconds');
    expect(Date.parse(last()?.from ?? '')).toBeGreaterThan(Date.parse(earlier.collectedAt));
  });
});
