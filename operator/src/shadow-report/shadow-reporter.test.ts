import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseRateLimitConfig } from '@portcullis/config';
import { quietLog as log, waitFor } from '@portcullis/testing';
import { Counter, Gauge, Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Resource } from '../resources.js';
import { createShadowReportMetrics } from './report-metrics.js';
import type { ShadowReportSink } from './report-sink.js';
import type { ShadowReport } from './rule-report.js';
import { ShadowReporter } from './shadow-reporter.js';

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
function instanceMetrics(): { registry: Registry; hit(over: boolean): void } {
  const registry = new Registry();
  new Gauge({ name: 'process_start_time_seconds', help: 's', registers: [registry] }).set(Date.now() / 1000);
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
  let reporter: ShadowReporter;
  let metrics: ReturnType<typeof createShadowReportMetrics>;
  const written: ShadowReport[] = [];
  const sink: ShadowReportSink = {
    write: (_r, report) => {
      written.push(report);
      return Promise.resolve(true);
    },
  };

  beforeEach(async () => {
    instance = instanceMetrics();
    server = createServer((_req, res) => void instance.registry.metrics().then((text) => res.end(text)));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
    written.length = 0;
    leader = true;
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
      isLeader: () => leader,
      sink,
      metrics,
      log,
    });
    reporter.start();
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
    instance.hit(true);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await scrapes()).toBe(0);
    expect(written).toEqual([]);
    leader = true;
    // the instance started within the window: all its hits count
    await lastWhen((r) => totalOf(r) === 1);
  });
});
