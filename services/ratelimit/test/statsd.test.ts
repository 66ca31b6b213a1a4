import { createSocket, type Socket } from 'node:dgram';
import { waitUntil } from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.js';

const CONFIG = `domain: d
descriptors:
  - key: k
    rate_limit: {unit: hour, requests_per_unit: 4}
  - key: user
    detailed_metric: true
    rate_limit: {unit: hour, requests_per_unit: 10}
`;
const TAGS = '.__app=rl.__cluster=eu_1';

describe('statsd sink', () => {
  let udp: Socket;
  const datagrams: string[] = [];
  let h: Harness;

  /** The sum of the deltas received for `name`, as statsd would aggregate them. */
  const total = (name: string): number =>
    datagrams
      .flatMap((d) => d.split('\n'))
      .filter((line) => line.startsWith(`${name}:`))
      .reduce((sum, line) => sum + Number(/:(\d+)\|c$/.exec(line)?.[1] ?? NaN), 0);

  beforeAll(async () => {
    udp = createSocket('udp4');
    udp.on('message', (m) => datagrams.push(m.toString()));
    await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
    h = await startHarness(
      { 'd.yaml': CONFIG },
      {
        USE_STATSD: 'true',
        STATSD_PROTOCOL: 'udp',
        STATSD_HOST: '127.0.0.1',
        STATSD_PORT: String(udp.address().port),
        STATS_FLUSH_INTERVAL: '50ms',
        EXTRA_TAGS: 'cluster:eu.1,app:rl',
        NEAR_LIMIT_RATIO: '0.5',
      },
    );
  });
  afterAll(async () => {
    await h.close();
    udp.close();
  });

  it("sends upstream's counter names with the tags, as deltas, near_limit after NEAR_LIMIT_RATIO", async () => {
    for (let i = 0; i < 5; i++) {
      await h.rls.shouldRateLimit({ domain: 'd', descriptors: [{ entries: [{ key: 'k', value: 'v' }] }] });
    }
    const rule = 'ratelimit.service.rate_limit.d.k';
    await waitUntil(
      () => total(`${rule}.total_hits${TAGS}`) === 5 && total(`${rule}.over_limit${TAGS}`) === 1,
    );
    expect(total(`${rule}.within_limit${TAGS}`)).toBe(4);
    expect(total(`${rule}.near_limit${TAGS}`)).toBe(2);
    // counters, timers, and gauges (the memory backend's key count)
    const line = /^[^\n:|]+:(\d+\|[cg]|\d+\.\d{3}\|ms(\|@[\d.]+)?)$/;
    expect(datagrams.flatMap((d) => d.split('\n')).filter((l) => !line.test(l))).toEqual([]);
  });

  it('names a detailed_metric rule by the value of the request', async () => {
    await h.rls.shouldRateLimit({
      domain: 'd',
      descriptors: [{ entries: [{ key: 'user', value: 'alice' }] }],
    });
    await waitUntil(() => total(`ratelimit.service.rate_limit.d.user_alice.total_hits${TAGS}`) === 1);
    expect(total(`ratelimit.service.rate_limit.d.user.total_hits${TAGS}`)).toBe(0);
  });

  it("sends upstream's gRPC server statistics: calls (failed ones too) and their response times", async () => {
    const calls = `ratelimit_server.ShouldRateLimit.total_requests${TAGS}`;
    const timings = (): number[] =>
      datagrams
        .flatMap((d) => d.split('\n'))
        .filter((l) => l.startsWith(`ratelimit_server.ShouldRateLimit.response_time${TAGS}:`))
        .map((l) => Number(/:([\d.]+)\|ms$/.exec(l)?.[1]));
    await waitUntil(() => total(calls) === 6); // the calls of the tests above
    await h.rls.shouldRateLimit({
      domain: 'd',
      descriptors: [{ entries: [{ key: 'unlisted', value: 'w' }] }],
    });
    await expect(h.rls.shouldRateLimit({ domain: '', descriptors: [] })).rejects.toThrow();
    await h.json({ domain: 'd', descriptors: [{ entries: [{ key: 'unlisted', value: 'w' }] }] });
    await waitUntil(() => total(calls) === 8 && timings().length === 8);
    expect(timings().every((ms) => ms > 0 && ms < 60_000)).toBe(true);
    const metrics = (await h.get('/metrics', 'debug')).text.split('\n');
    const sample = (name: string) =>
      metrics.find((l) => l.startsWith(`${name}{`) && l.includes('grpc_method="ShouldRateLimit"'));
    expect(sample('ratelimit_service_total_requests')).toMatch(/ 8$/);
    expect(sample('ratelimit_service_response_time_seconds_count')).toMatch(/ 8$/);
  });

  it('shows the same figures on /metrics with labels, EXTRA_TAGS among them', async () => {
    const metrics = (await h.get('/metrics', 'debug')).text;
    const line = (name: string, descriptor: string): string | undefined =>
      metrics.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(`descriptor="${descriptor}"`));
    for (const [name, descriptor, value] of [
      ['ratelimit_service_rate_limit_total_hits', 'k', 5],
      ['ratelimit_service_rate_limit_over_limit', 'k', 1],
      ['ratelimit_service_rate_limit_near_limit', 'k', 2],
      ['ratelimit_service_rate_limit_total_hits', 'user_alice', 1],
    ] as const) {
      const l = line(name, descriptor);
      expect(l).toMatch(new RegExp(` ${value}$`));
      expect(l).toContain('domain="d"');
      expect(l).toContain('cluster="eu.1"');
      expect(l).toContain('app="rl"');
    }
  });
});
