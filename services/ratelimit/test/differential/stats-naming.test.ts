import { execFileSync } from 'node:child_process';
import { createSocket, type Socket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import {
  freePort,
  startRedis,
  startUpstreamRateLimit,
  waitUntil,
  type RedisServer,
  type UpstreamRateLimit,
} from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { UPSTREAM_MAPPINGS } from '../../src/stats/upstream-prometheus-mapping.js';
import { createRlsClient, startHarness, type Harness } from '../harness.js';

// Upstream's DogStatsD sink and Prometheus sink against ours, after the same traffic to both.

const CONFIG = `domain: dom
descriptors:
  - key: k1
    value: v1
    rate_limit: {unit: minute, requests_per_unit: 1}
  - key: k2
    descriptors:
      - key: k3
        rate_limit: {unit: minute, requests_per_unit: 100}
        descriptors:
          - key: k4
            rate_limit: {unit: minute, requests_per_unit: 100}
  - key: my-key
    rate_limit: {unit: minute, requests_per_unit: 5}
  - key: ip
    detailed_metric: true
    rate_limit: {unit: minute, requests_per_unit: 100}
  - key: ip
    value: 50.0.0.5
    rate_limit: {unit: minute, requests_per_unit: 0}
`;
// names upstream's SanitizeStatName rewrites (issue 40), through each sink's own mapping
const ADDRESSES = ['50.0.0.5', '10.0.0.1:8080', 'a|b', '2001:db8::1', 'a.1.2.3.4.b', 'sp ace/%=,é'];
const entries = (...pairs: Array<[string, string]>) => ({
  entries: pairs.map(([key, value]) => ({ key, value })),
});
const TRAFFIC = [
  ...Array.from({ length: 3 }, () => ({ domain: 'dom', descriptors: [entries(['k1', 'v1'])] })),
  { domain: 'dom', descriptors: [entries(['k2', 'a'], ['k3', 'b'])] },
  { domain: 'dom', descriptors: [entries(['k2', 'a'], ['k3', 'b'], ['k4', 'c'])] },
  ...Array.from({ length: 2 }, () => ({ domain: 'dom', descriptors: [entries(['my-key', 'x'])] })),
  { domain: 'nope', descriptors: [entries(['k1', 'v1'])] },
  ...ADDRESSES.map((value) => ({ domain: 'dom', descriptors: [entries(['ip', value])] })),
  { domain: 'nope.10.0.0.1:1', descriptors: [entries(['k1', 'v1'])] },
];
const COMMON = { STATS_FLUSH_INTERVAL: '100ms', LOCAL_CACHE_SIZE_IN_BYTES: '1000000' };

interface Sides {
  redis: RedisServer;
  upstream: UpstreamRateLimit;
  ours: Harness;
}

async function startSides(env: (side: 'upstream' | 'ours') => Record<string, string>): Promise<Sides> {
  const redis = await startRedis();
  const upstream = await startUpstreamRateLimit({
    env: { REDIS_URL: redis.address, ...COMMON, ...env('upstream') },
    files: { 'dom.yaml': CONFIG },
  });
  const ours = await startHarness({ 'dom.yaml': CONFIG }, { ...COMMON, ...env('ours') });
  return { redis, upstream, ours };
}

async function stopSides(s: Sides | undefined): Promise<void> {
  await s?.ours.close();
  await s?.upstream.stop();
  await s?.redis.stop();
}

/** The same calls to both, one after the other, over gRPC. */
async function sendTraffic(s: Sides): Promise<void> {
  const upstream = createRlsClient(s.upstream.grpcAddress);
  for (const request of TRAFFIC) {
    await upstream.shouldRateLimit(request);
    await s.ours.rls.shouldRateLimit(request);
  }
}

describe('DogStatsD (USE_DOG_STATSD) as upstream sends it', () => {
  const received = { upstream: [] as string[], ours: [] as string[] };
  const sockets: Socket[] = [];
  let sides: Sides | undefined;

  beforeAll(async () => {
    const ports = { upstream: 0, ours: 0 };
    for (const side of ['upstream', 'ours'] as const) {
      const udp = createSocket('udp4');
      udp.on('message', (m) => received[side].push(...m.toString().split('\n').filter(Boolean)));
      await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
      ports[side] = udp.address().port;
      sockets.push(udp);
    }
    sides = await startSides((side) => ({
      USE_STATSD: 'false',
      USE_DOG_STATSD: 'true',
      STATSD_HOST: '127.0.0.1',
      STATSD_PORT: String(ports[side]),
      EXTRA_TAGS: 'app:rl.1',
      USE_DOG_STATSD_MOGRIFIERS: 'RULE',
      DOG_STATSD_MOGRIFIER_RULE_PATTERN: String.raw`^ratelimit\.service\.rate_limit\.(.*)\.(.*)\.(.*)$`,
      DOG_STATSD_MOGRIFIER_RULE_NAME: 'ratelimit.service.rate_limit.$3',
      DOG_STATSD_MOGRIFIER_RULE_TAGS: 'domain:$1,descriptor:$2',
    }));
  });
  afterAll(async () => {
    await stopSides(sides);
    for (const s of sockets) s.close();
  });

  /** `name|type|#sorted tags` → summed value, for the `ratelimit.service` and `ratelimit_server` counters. */
  const counters = (lines: readonly string[]): Map<string, number> => {
    const out = new Map<string, number>();
    for (const line of lines) {
      const [head = '', type, ...fields] = line.split('|');
      const i = head.lastIndexOf(':');
      const name = head.slice(0, i);
      if (type !== 'c' || !/^ratelimit(\.service|_server)\./.test(name)) continue;
      const tags = (fields.find((f) => f.startsWith('#')) ?? '#').slice(1).split(',').filter(Boolean).sort();
      const key = `${name}|c|#${tags.join(',')}`;
      out.set(key, (out.get(key) ?? 0) + Number(head.slice(i + 1)));
    }
    return out;
  };

  it('sends the same counters, names and tags (EXTRA_TAGS and a mogrifier) as upstream', async () => {
    if (!sides) throw new Error('not started');
    await sendTraffic(sides);
    // a call is counted there once answered, so a flush with all of them holds every rule's counts too
    const calls = 'ratelimit_server.ShouldRateLimit.total_requests|c|#app:rl_1';
    await waitUntil(
      () =>
        counters(received.upstream).get(calls) === TRAFFIC.length &&
        counters(received.ours).get(calls) === TRAFFIC.length,
      15_000,
    );
    // a flush spans several datagrams, which the calls' counter need not be the last of; on a timeout the
    // assertion below shows the difference
    const same = (): boolean => isDeepStrictEqual(counters(received.ours), counters(received.upstream));
    await waitUntil(same, 5_000).catch(() => undefined);
    const expected = counters(received.upstream);
    expect(
      expected.get('ratelimit.service.rate_limit.total_hits|c|#app:rl_1,descriptor:k1_v1,domain:dom'),
    ).toBe(3);
    expect(expected.get('ratelimit.service.rate_limit.nope.domain_not_found|c|#app:rl_1')).toBe(1);
    expect(
      expected.get('ratelimit.service.rate_limit.over_limit|c|#app:rl_1,descriptor:ip_50_0_0_5,domain:dom'),
    ).toBe(1);
    expect(Object.fromEntries(counters(received.ours))).toEqual(Object.fromEntries(expected));
  });
});

/** The families of a Prometheus text page: name → type, and each series `name{sorted labels}` → value. */
function parseExposition(text: string): { types: Map<string, string>; series: Map<string, number> } {
  const types = new Map<string, string>();
  const series = new Map<string, number>();
  for (const line of text.split('\n')) {
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type?.[1] && type[2]) types.set(type[1], type[2]);
    const sample = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!sample?.[1] || sample[3] === undefined) continue;
    const labels = [...(sample[2] ?? '').matchAll(/\b([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)]
      .map(([, k, v]) => `${k}=${v}`)
      .sort();
    series.set(`${sample[1]}{${labels.join(',')}}`, Number(sample[3]));
  }
  return { types, series };
}

describe('PROMETHEUS_NAMING=upstream', () => {
  let sides: Sides | undefined;
  let upstreamMetrics = 0;

  beforeAll(async () => {
    upstreamMetrics = await freePort();
    const env: Record<'upstream' | 'ours', Record<string, string>> = {
      upstream: {
        USE_STATSD: 'false',
        USE_PROMETHEUS: 'true',
        PROMETHEUS_ADDR: `127.0.0.1:${upstreamMetrics}`,
      },
      ours: { PROMETHEUS_NAMING: 'upstream' },
    };
    sides = await startSides((side) => env[side]);
  });
  afterAll(() => stopSides(sides));

  it("holds upstream's default_mapper.yaml, entry for entry", () => {
    const goMod = readFileSync(
      new URL('../../../../hack/peers/ratelimit-upstream/go.mod', import.meta.url),
      'utf8',
    );
    const version = /github\.com\/envoyproxy\/ratelimit (\S+)/.exec(goMod)?.[1];
    const modCache = execFileSync('go', ['env', 'GOMODCACHE'], { encoding: 'utf8' }).trim();
    const file = join(
      modCache,
      `github.com/envoyproxy/ratelimit@${version}`,
      'src/stats/prom/default_mapper.yaml',
    );
    expect(UPSTREAM_MAPPINGS).toEqual(
      (parse(readFileSync(file, 'utf8')) as { mappings: unknown[] }).mappings,
    );
  });

  it("exports every series upstream's Prometheus sink exports, with its name, labels, type and value", async () => {
    if (!sides) throw new Error('not started');
    await sendTraffic(sides);
    const scrape = async (url: string) => parseExposition(await (await fetch(url)).text());
    const upstreamUrl = `http://127.0.0.1:${upstreamMetrics}/metrics`;
    const oursUrl = `http://127.0.0.1:${sides.ours.app.ports.debug}/metrics`;
    // a call is counted there once answered, so a flush with all of them holds every rule's counts too
    const calls = 'ratelimit_service_total_requests{grpc_method=ShouldRateLimit}';
    await waitUntil(async () => (await scrape(upstreamUrl)).series.get(calls) === TRAFFIC.length, 15_000);
    const upstream = await scrape(upstreamUrl);
    const ours = await scrape(oursUrl);

    const families = [...upstream.types].filter(([name]) => name.startsWith('ratelimit_service'));
    expect(families.length).toBeGreaterThan(5);
    for (const [name, type] of families) expect([name, ours.types.get(name)]).toEqual([name, type]);
    // response times differ; their buckets, labels and count do not
    const timing = (key: string) => /^ratelimit_service_response_time_seconds_(sum|bucket)\{/.test(key);
    const buckets = (s: Map<string, number>) =>
      [...s.keys()].filter((k) => k.startsWith('ratelimit_service_response_time_seconds_bucket{'));
    expect(buckets(ours.series)).toEqual(buckets(upstream.series));
    const upstreamSeries = [...upstream.series].filter(
      ([k]) => k.startsWith('ratelimit_service') && !timing(k),
    );
    for (const [key, value] of upstreamSeries) expect([key, ours.series.get(key)]).toEqual([key, value]);
    // ours has more only where upstream has not counted yet, or for statistics upstream does not have
    const extra = [...ours.series].filter(
      ([k, v]) => k.startsWith('ratelimit_service') && !upstream.series.has(k) && v !== 0 && !timing(k),
    );
    expect(extra).toEqual([]);
  });
});
