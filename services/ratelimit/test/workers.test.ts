import { createSocket, type Socket } from 'node:dgram';
import { request } from 'node:http';
import { Redis } from 'ioredis';
import { PROTO_FILES, createMessageCodec } from '@portcullis/protos';
import {
  freePort,
  quietLog,
  replaceRuntimeFile,
  runRateLimit,
  startRedis,
  waitFor,
  waitUntil,
  type RedisServer,
} from '@portcullis/testing';
import { createSotwServer } from '@portcullis/xds';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RATE_LIMIT_CONFIG_TYPE } from '../src/config/xds-source.js';
import { createRlsClient } from './harness.js';
import { startService } from './service-process.js';

type Service = Awaited<ReturnType<typeof startService>>;
type Decision = { overallCode: string; statuses: Array<{ currentLimit?: { requestsPerUnit: number } }> };

const descriptors = (n: number, value = 'v') => Array(n).fill({ entries: [{ key: 'k', value }] }) as object[];
const decision = (value: string) => ({ domain: 'a', descriptors: descriptors(1, value) });

/** One decision over gRPC, on a connection of its own: node:cluster gives each new connection to the next worker. */
async function grpcDecision(p: Service, value: string): Promise<Decision> {
  const rls = createRlsClient(`127.0.0.1:${p.ports.grpc}`);
  try {
    return (await rls.shouldRateLimit(decision(value))) as Decision;
  } finally {
    rls.close();
  }
}

/** One decision over `/json`, on a connection of its own. */
async function jsonDecision(p: Service, value: string): Promise<Decision> {
  return (await postJson(p, decision(value))).body as Decision;
}

/** A `/json` request on a connection of its own: its status and parsed body. */
function postJson(p: Service, message: object): Promise<{ status: number; body: unknown }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: p.ports.http, path: '/json', method: 'POST', agent: false },
      (res) => {
        let body = '';
        res.on('data', (d: Buffer) => (body += d.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(body) as unknown }));
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(message));
  });
}

const debug = (p: Service, path: string): Promise<Response> =>
  fetch(`http://127.0.0.1:${p.ports.debug}${path}`);
const debugText = async (p: Service, path: string): Promise<string> => (await debug(p, path)).text();

/** Once every worker answers healthy on the debug port (the HTTP port answers as soon as one does). */
const allWorkersUp = (p: Service): Promise<void> =>
  waitUntil(async () => (await debug(p, '/health')).status === 200, 30_000);

describe('RATELIMIT_WORKERS=2 on Redis', () => {
  let redis: RedisServer;
  let p: Service;
  let admin: Redis;
  let monitor: Redis;
  let udp: Socket;
  const datagrams: string[] = [];
  /** Per Redis client address (one per worker: KVSTORE_POOL_SIZE=1), the increments it sent. */
  const incrementsBySource = new Map<string, number>();

  beforeAll(async () => {
    redis = await startRedis();
    udp = createSocket('udp4');
    udp.on('message', (m) => datagrams.push(m.toString()));
    await new Promise<void>((resolve) => udp.bind(0, '127.0.0.1', resolve));
    admin = new Redis(redis.port, '127.0.0.1');
    monitor = await admin.monitor();
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      // the counters script's own commands come from the source "lua"
      if (source !== 'lua' && args.some((a) => a.includes('a_k_')))
        incrementsBySource.set(source, (incrementsBySource.get(source) ?? 0) + 1);
    });
    p = await startService({
      BACKEND_TYPE: 'redis',
      KVSTORE_URL: redis.address,
      KVSTORE_POOL_SIZE: '1',
      RATELIMIT_WORKERS: '2',
      RATELIMIT_MAX_DESCRIPTORS: '2',
      USE_STATSD: 'true',
      STATSD_PROTOCOL: 'udp',
      STATSD_HOST: '127.0.0.1',
      STATSD_PORT: String(udp.address().port),
      STATS_FLUSH_INTERVAL: '50ms',
    });
    await allWorkersUp(p);
  }, 120_000);
  afterAll(async () => {
    await p.stop();
    monitor.disconnect();
    admin.disconnect();
    udp.close();
    await redis.stop();
  });

  it('counts each decision once whatever worker answered, and over limit across workers (shared counters)', async () => {
    const codes: string[] = [];
    for (let i = 0; i < 10; i++) {
      codes.push((await grpcDecision(p, 'v')).overallCode, (await jsonDecision(p, 'v')).overallCode);
    }
    expect(codes).toEqual([...Array<string>(5).fill('OK'), ...Array<string>(15).fill('OVER_LIMIT')]);
    // both workers decided: each has its own Redis connection
    expect([...incrementsBySource.values()].filter((n) => n > 0)).toHaveLength(2);

    const stats = await debugText(p, '/stats');
    expect(stats).toContain('ratelimit.service.rate_limit.a.k.total_hits: 20\n');
    expect(stats).toContain('ratelimit.service.rate_limit.a.k.within_limit: 5\n');
    expect(stats).toContain('ratelimit.service.rate_limit.a.k.over_limit: 15\n');
    expect(stats).toContain('ratelimit_server.ShouldRateLimit.total_requests: 10\n');
    expect(stats).toContain('ratelimit.redis_pool.cx_active: 2\n');
    const metrics = await debugText(p, '/metrics');
    expect(metrics).toContain('ratelimit_service_rate_limit_total_hits{domain="a",descriptor="k"} 20\n');
    expect(metrics).toContain('ratelimit_service_rate_limit_over_limit{domain="a",descriptor="k"} 15\n');
    expect(metrics).toMatch(
      /ratelimit_service_response_time_seconds_count\{grpc_method="[^"]*ShouldRateLimit"\} 10\n/,
    );
    expect(metrics).toContain('ratelimit_redis_pool_cx_active 2\n');
  });

  it('flushes statsd from the primary: counters as deltas summed once, gauges summed, not one per worker', async () => {
    const lines = (): string[] => datagrams.flatMap((d) => d.split('\n'));
    const total = (name: string): number =>
      lines()
        .filter((l) => l.startsWith(`${name}:`))
        .reduce((sum, l) => sum + Number(/:(\d+)\|c$/.exec(l)?.[1] ?? NaN), 0);
    await waitUntil(() => total('ratelimit.service.rate_limit.a.k.total_hits') === 20);
    expect(total('ratelimit.service.rate_limit.a.k.over_limit')).toBe(15);
    const flushes = datagrams.filter((d) => d.includes('ratelimit.redis_pool.cx_active:'));
    expect(flushes.at(-1)?.match(/^ratelimit\.redis_pool\.cx_active:.*$/gm)).toEqual([
      'ratelimit.redis_pool.cx_active:2|g',
    ]);
  });

  it('reloads the files in every worker', async () => {
    await replaceRuntimeFile(
      p.root,
      'a.yaml',
      'domain: a\ndescriptors:\n  - key: k\n    rate_limit: {unit: hour, requests_per_unit: 50}\n',
    );
    // /rlconfig prints one text only once every worker has it
    await waitUntil(
      async () =>
        (await debugText(p, '/rlconfig')) ===
        'a.k: unit=HOUR requests_per_unit=50, shadow_mode: false, quota_mode: false\n',
      10_000,
    );
    const before = new Map(incrementsBySource);
    for (let i = 0; i < 4; i++) {
      for (const d of [await grpcDecision(p, 'w'), await jsonDecision(p, 'w')]) {
        expect(d.statuses[0]?.currentLimit?.requestsPerUnit).toBe(50);
      }
    }
    expect([...incrementsBySource].filter(([source, n]) => n > (before.get(source) ?? 0))).toHaveLength(2);
    expect(await debugText(p, '/stats')).toContain('ratelimit.service.config_load_success: 4\n');
  });

  it('bounds the descriptors of a request in every worker (issue 34)', async () => {
    const three = { domain: 'a', descriptors: descriptors(3) };
    const refusal = 'descriptors[2]: more than 2 descriptors in one request (RATELIMIT_MAX_DESCRIPTORS)';
    // each connection goes to the next worker
    for (let i = 0; i < 4; i++) {
      const rls = createRlsClient(`127.0.0.1:${p.ports.grpc}`);
      try {
        await expect(rls.shouldRateLimit(three)).rejects.toMatchObject({ code: 3, details: refusal });
      } finally {
        rls.close();
      }
      expect(await postJson(p, three)).toEqual({
        status: 400,
        body: { error: refusal, code: 'REQUEST_INVALID' },
      });
    }
  });

  it('on SIGTERM drains every worker and exits 0', async () => {
    p.child.kill('SIGTERM');
    // the output names what went wrong when the exit code does not
    expect(await p.exited, p.output()).toBe(0);
    expect(p.output()).toMatch(/msg="worker exited" worker=1 code=0/);
    expect(p.output()).toMatch(/msg="worker exited" worker=2 code=0/);
    expect(p.output()).toMatch(/msg="shutting down" worker=1 signal=SIGTERM/);
  });
});

describe('worker processes', () => {
  it('replace a worker that dies; what it counted stays in the totals', async () => {
    const redis = await startRedis();
    const p = await startService({
      BACKEND_TYPE: 'redis',
      KVSTORE_URL: redis.address,
      RATELIMIT_WORKERS: '2',
    });
    try {
      await allWorkersUp(p);
      for (let i = 0; i < 4; i++) await jsonDecision(p, 'v');
      expect(await debugText(p, '/stats')).toContain('ratelimit.service.rate_limit.a.k.total_hits: 4\n');
      const pid = Number(/msg="worker started" worker=1 pid=(\d+)/.exec(p.output())?.[1]);
      process.kill(pid, 'SIGKILL');
      await waitFor(
        () => p.output(),
        (out) => /msg="worker exited; starting another" worker=1 code=null signal=SIGKILL/.test(out),
      );
      await allWorkersUp(p);
      expect(await (await debug(p, '/health')).json()).toMatchObject({
        workers: true,
        worker_2: true,
        worker_3: true,
      });
      expect((await jsonDecision(p, 'v')).overallCode).toBe('OK');
      expect(await debugText(p, '/stats')).toContain('ratelimit.service.rate_limit.a.k.total_hits: 5\n');
    } finally {
      await p.stop();
      await redis.stop();
    }
  }, 120_000);

  it('each subscribe to xDS, and every one follows a new version', async () => {
    const codec = createMessageCodec(
      PROTO_FILES.rateLimitConfig,
      'ratelimit.config.ratelimit.v3.RateLimitConfig',
    );
    const config = (requestsPerUnit: number) => ({
      name: 'team/a',
      value: codec.encode({
        name: 'team/a',
        domain: 'a',
        descriptors: [{ key: 'k', rateLimit: { unit: 'MINUTE', requestsPerUnit } }],
      }),
    });
    const xds = createSotwServer({ host: '127.0.0.1', port: await freePort(), log: quietLog });
    xds.setResources(RATE_LIMIT_CONFIG_TYPE, [config(5)]);
    await xds.start();
    const redis = await startRedis();
    const p = await startService({
      BACKEND_TYPE: 'redis',
      KVSTORE_URL: redis.address,
      RATELIMIT_WORKERS: '2',
      CONFIG_TYPE: 'GRPC_XDS_SOTW',
      CONFIG_GRPC_XDS_SERVER_URL: `127.0.0.1:${xds.port}`,
      CONFIG_GRPC_XDS_NODE_ID: 'rl-workers',
    });
    try {
      await allWorkersUp(p);
      expect(xds.clients().map((c) => c.nodeId)).toEqual(['rl-workers', 'rl-workers']);
      xds.setResources(RATE_LIMIT_CONFIG_TYPE, [config(9)]);
      await waitUntil(
        async () =>
          (await debugText(p, '/rlconfig')) ===
          'a.k: unit=MINUTE requests_per_unit=9, shadow_mode: false, quota_mode: false\n',
        10_000,
      );
    } finally {
      await p.stop();
      await redis.stop();
      await xds.close();
    }
  }, 120_000);

  it('refuse more than one with the memory backend, naming the variable', async () => {
    const p = runRateLimit({ BACKEND_TYPE: 'memory', RATELIMIT_WORKERS: '2', LOG_FORMAT: 'json' });
    expect(await p.exited).toBe(1);
    const line = JSON.parse(p.output().trim().split('\n').pop() ?? '{}') as Record<string, unknown>;
    expect(line).toMatchObject({
      '@message': 'invalid settings',
      problems: [
        'RATELIMIT_WORKERS=2: BACKEND_TYPE=memory keeps the counters in the process, so more than one worker would split them',
      ],
    });
  });
});
