import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { PROTO_FILES, createMessageCodec } from '@portcullis/protos';
import {
  freePort,
  startRateLimitProcess,
  startRedis,
  waitUntil,
  type RedisServer,
} from '@portcullis/testing';
import { createSotwServer, type SotwServer } from '@portcullis/xds';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_ROUTE_TYPE } from '../src/router/api-routes.js';
import { quietLog, startGatewayHarness, type GatewayHarness } from './harness.js';

const codec = createMessageCodec(PROTO_FILES.portcullisConfig, 'portcullis.config.v1.ApiRoute');
const RULES = {
  'gateway.yaml': [
    'domain: gateway',
    'descriptors:',
    '  - key: route',
    '    value: demo/limited/ping',
    '    descriptors:',
    '      - key: client',
    '        rate_limit: {unit: hour, requests_per_unit: 1000000}',
    '',
  ].join('\n'),
};

interface Outcome {
  status: number;
  code: string | undefined;
  ms: number;
}

/**
 * The gateway with its sessions in Redis and a rate-limited, signed-in route asked of a real ratelimit
 * process counting in the same Redis, under load while that Redis is SIGKILLed and brought back on its port.
 * Redis keeps an append-only file here, so the session signed in before the kill is still there after.
 */
describe('gateway: Redis killed and restarted under load', () => {
  let redisDir: string;
  let redis: RedisServer;
  let xds: SotwServer;
  let rls: Awaited<ReturnType<typeof startRateLimitProcess>>;
  let g: GatewayHarness;
  const redisArgs = (): string[] => ['--appendonly', 'yes', '--appendfsync', 'always', '--dir', redisDir];

  beforeAll(async () => {
    redisDir = await mkdtemp(join(tmpdir(), 'gateway-fault-redis-'));
    redis = await startRedis({ args: redisArgs() });
    rls = await startRateLimitProcess(RULES, { BACKEND_TYPE: 'redis', KVSTORE_URL: redis.address });
    xds = createSotwServer({ host: '127.0.0.1', port: await freePort(), log: quietLog });
    xds.setResources(API_ROUTE_TYPE, [
      {
        name: 'demo/limited',
        value: codec.encode({
          name: 'demo/limited',
          routes: [
            {
              name: 'ping',
              method: 'GET',
              path: 'limited',
              auth: true,
              handler: 'Example.ping',
              rateLimit: {
                requestsPerUnit: 1000000,
                unit: 'hour',
                descriptors: [{ key: 'client', from: 'remoteAddress' }],
              },
            },
          ],
        }),
      },
    ]);
    await xds.start();
    g = await startGatewayHarness({
      GATEWAY_AUTH: 'session',
      REDIS_URL: `redis://${redis.address}`,
      GATEWAY_SESSION_KEYS: 'a-session-key-that-is-long-enough-0123456789',
      GATEWAY_XDS_SERVER_URL: `127.0.0.1:${xds.port}`,
      GATEWAY_RATELIMIT_URL: `127.0.0.1:${rls.ports.grpc}`,
    });
    await g.app.backend.accounts.createUser({ username: 'dora', password: 'open sesame' });
  }, 60_000);
  afterAll(async () => {
    await g.close();
    await xds.close();
    await rls.stop();
    await redis.stop();
    await rm(redisDir, { recursive: true, force: true });
  });

  it(
    'answers fast 503s while Redis is gone, never crashes, and serves the same session once it is back',
    { timeout: 90_000 },
    async () => {
      const login = await g.request('POST', '/api/auth', {
        body: { username: 'dora', password: 'open sesame' },
      });
      const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
      await waitUntil(
        async () => (await g.request('GET', '/api/limited', { headers: { cookie } })).status === 200,
        20_000,
      );
      const first = await g.request('GET', '/api/limited', { headers: { cookie } });
      expect(first.headers.get('ratelimit-limit')).not.toBeNull(); // the ratelimit service was asked

      const outcomes: Outcome[] = [];
      let running = true;
      const load = async (): Promise<void> => {
        while (running) {
          const started = Date.now();
          const r = await g.request('GET', '/api/limited', { headers: { cookie } });
          outcomes.push({
            status: r.status,
            code: (r.body as { code?: string }).code,
            ms: Date.now() - started,
          });
        }
      };
      const loops = [load(), load(), load(), load()];
      try {
        await waitUntil(() => outcomes.filter((o) => o.status === 200).length >= 50, 15_000);
        await redis.kill();
        const killedAt = outcomes.length;
        // ten seconds: long enough for ioredis' default reconnection delay to grow past a second
        await sleep(10_000);
        const down = outcomes.slice(killedAt);
        expect(down.filter((o) => o.status === 503).length).toBeGreaterThan(30);
        redis = await startRedis({ port: redis.port, args: redisArgs() });
        const backAt = outcomes.length;
        await waitUntil(() => outcomes.slice(backAt).filter((o) => o.status === 200).length >= 30, 15_000);
      } finally {
        running = false;
        await Promise.all(loops);
      }
      const failures = outcomes.filter((o) => o.status !== 200);
      expect(new Set(failures.map((o) => `${o.status} ${o.code}`))).toEqual(
        new Set(['503 ACCOUNTS_BACKEND_UNAVAILABLE']),
      );
      // failures come at once, not after a connect or command timeout
      expect(Math.max(...failures.map((o) => o.ms))).toBeLessThan(1500);
      expect((await g.request('GET', '/api/limited', { headers: { cookie } })).status).toBe(200);
    },
  );
});
