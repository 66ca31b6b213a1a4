import { request } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROTO_FILES, createMessageCodec } from '@portcullis/protos';
import {
  freePort,
  quietLog,
  runHackScript,
  startEntryPoint,
  startRateLimitProcess,
  startRedis,
  waitUntil,
  type LoggedProcess,
  type RedisServer,
} from '@portcullis/testing';
import { createSotwServer, type SotwServer } from '@portcullis/xds';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_ROUTE_TYPE } from '../src/router/api-routes.js';

// The gateway from its entry point with GATEWAY_WORKERS=2: node:cluster hands each new connection to the next
// worker in turn, so requests sent each on a connection of its own alternate between the two.

const MAIN = join(import.meta.dirname, '../src/main.ts');
const codec = createMessageCodec(PROTO_FILES.portcullisConfig, 'portcullis.config.v1.ApiRoute');
const RULES = {
  'gateway.yaml': [
    'domain: gateway',
    'descriptors:',
    '  - key: route',
    '    value: demo/w/limited',
    '    rate_limit: {unit: hour, requests_per_unit: 3}',
    '',
  ].join('\n'),
};
const PASSWORD = 'workers-test-password';

interface Answer {
  status: number;
  body: string;
}

describe('GATEWAY_WORKERS=2 on Redis', () => {
  let redis: RedisServer | undefined;
  let rls: Awaited<ReturnType<typeof startRateLimitProcess>> | undefined;
  let xds: SotwServer | undefined;
  let gateway: LoggedProcess | undefined;
  /** The same, in session mode. */
  let sessions: LoggedProcess | undefined;
  let stateDir: string | undefined;
  let port: number;
  let sessionPort: number;

  /** One request on a connection of its own (`agent: false`): the next worker answers it. */
  const callAt = (
    at: () => number,
    method: string,
    path: string,
    headers: Record<string, string> = {},
    body?: string,
  ) =>
    new Promise<Answer & { cookie: string }>((resolve, reject) => {
      const target = { host: '127.0.0.1', port: at(), method, path, headers, agent: false };
      const req = request(target, (res) => {
        let text = '';
        res.on('data', (d: Buffer) => (text += d.toString()));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: text,
            cookie: (res.headers['set-cookie']?.[0] ?? '').split(';')[0] ?? '',
          }),
        );
      });
      req.on('error', reject);
      req.end(body);
    });
  const call = (method: string, path: string, headers?: Record<string, string>, body?: string) =>
    callAt(() => port, method, path, headers, body);
  const signIn = (at: () => number) =>
    callAt(
      at,
      'POST',
      '/api/auth',
      { 'content-type': 'application/json' },
      JSON.stringify({ username: 'alice', password: PASSWORD }),
    );
  const statuses = async (n: number, send: () => Promise<Answer>): Promise<number[]> => {
    const seen = [];
    for (let i = 0; i < n; i++) seen.push((await send()).status);
    return seen;
  };

  beforeAll(async () => {
    redis = await startRedis();
    // tsx compiles the service first: slow on a busy machine
    rls = await startRateLimitProcess(RULES, {}, 60_000);
    xds = createSotwServer({ host: '127.0.0.1', port: await freePort(), log: quietLog });
    xds.setResources(API_ROUTE_TYPE, [
      {
        name: 'demo/w',
        value: codec.encode({
          name: 'demo/w',
          routes: [
            {
              name: 'limited',
              method: 'GET',
              path: 'limited',
              auth: false,
              handler: 'Example.ping',
              rateLimit: { requestsPerUnit: 3, unit: 'hour', descriptors: [] },
            },
          ],
        }),
      },
    ]);
    await xds.start();
    const created = await runHackScript('create-user.ts', ['alice'], {
      REDIS_URL: `redis://${redis.address}`,
      PORTCULLIS_PASSWORD: PASSWORD,
    });
    expect(created.code, created.stderr).toBe(0);
    // no keys given: the primary generates them here once, and both workers sign with them
    stateDir = await mkdtemp(join(tmpdir(), 'gateway-workers-'));
    [port, sessionPort] = [await freePort(), await freePort()];
    const common = {
      GATEWAY_HOST: '127.0.0.1',
      GATEWAY_WORKERS: '2',
      GATEWAY_REDIS_URL: `redis://${redis.address}`,
      GATEWAY_SHUTDOWN_DELAY: '0s',
      LOG_LEVEL: 'info',
      LOG_FORMAT: 'json',
    };
    [gateway, sessions] = await Promise.all([
      startEntryPoint(MAIN, {
        env: {
          ...common,
          GATEWAY_PORT: String(port),
          GATEWAY_AUTH: 'jwt',
          GATEWAY_XDS_SERVER_URL: `127.0.0.1:${xds.port}`,
          GATEWAY_RATELIMIT_URL: `127.0.0.1:${rls.ports.grpc}`,
          GATEWAY_RATELIMIT_FAILURE_MODE: 'deny',
          GATEWAY_STATE_DIR: join(stateDir, 'jwt'),
        },
        healthUrl: `http://127.0.0.1:${port}/healthz`,
      }),
      startEntryPoint(MAIN, {
        env: {
          ...common,
          GATEWAY_PORT: String(sessionPort),
          GATEWAY_AUTH: 'session',
          GATEWAY_RATELIMIT_URL: 'none',
          GATEWAY_STATE_DIR: join(stateDir, 'session'),
        },
        healthUrl: `http://127.0.0.1:${sessionPort}/healthz`,
      }),
    ]);
    // both workers of each ready: the jwt gateway's with their xDS routes applied
    for (const at of [() => port, () => sessionPort]) {
      await waitUntil(async () => {
        const seen = await statuses(2, () => callAt(at, 'GET', '/readyz'));
        return seen.every((s) => s === 200);
      }, 60_000);
    }
  }, 120_000);

  afterAll(async () => {
    await gateway?.stop();
    await sessions?.stop();
    await xds?.close();
    await rls?.stop();
    await redis?.stop();
    if (stateDir) await rm(stateDir, { recursive: true, force: true });
  });

  it('takes a token signed in one worker in the other, and refuses it in both once revoked', async () => {
    const signedIn = await signIn(() => port);
    expect(signedIn.status, signedIn.body).toBe(200);
    const { jwt } = JSON.parse(signedIn.body) as { jwt: string };
    const bearer = { authorization: `Bearer ${jwt}` };
    // each worker verifies it, and keeps the verdict in its token cache
    expect(await statuses(4, () => call('GET', '/api/test', bearer))).toEqual([200, 200, 200, 200]);
    expect((await call('DELETE', '/api/auth', bearer)).status).toBe(200);
    expect(await statuses(4, () => call('GET', '/api/test', bearer))).toEqual([401, 401, 401, 401]);
  });

  it('recognises a session begun in one worker in the other, until it is ended in either', async () => {
    const at = () => sessionPort;
    const signedIn = await signIn(at);
    expect([signedIn.status, signedIn.cookie], signedIn.body).toEqual([200, expect.stringContaining('=')]);
    const cookie = { cookie: signedIn.cookie };
    expect(await statuses(4, () => callAt(at, 'GET', '/api/test', cookie))).toEqual([200, 200, 200, 200]);
    expect((await callAt(at, 'DELETE', '/api/auth', cookie)).status).toBe(200);
    expect(await statuses(4, () => callAt(at, 'GET', '/api/test', cookie))).toEqual([401, 401, 401, 401]);
  });

  it('counts one rate limit across the workers', async () => {
    // the ratelimit service answers once each worker's client is connected: RateLimit-* headers show it
    await waitUntil(async () => (await statuses(2, () => call('GET', '/api/ping'))).every((s) => s === 200));
    expect(await statuses(6, () => call('GET', '/api/limited'))).toEqual([200, 200, 200, 429, 429, 429]);
  });

  it('answers /metrics from either worker with the sum over both', async () => {
    const metrics = await Promise.all([call('GET', '/metrics'), call('GET', '/metrics')]);
    for (const m of metrics) {
      expect(m.status).toBe(200);
      expect(m.body).toMatch(/^portcullis_gateway_requests_total\{method="GET",status="429",[^}]*\} 3$/m);
      expect(m.body).toMatch(/^portcullis_gateway_requests_total\{method="DELETE",status="200",[^}]*\} 1$/m);
    }
  });

  it('stops both workers and itself on SIGTERM, exiting 0', async () => {
    if (!gateway) throw new Error('no gateway');
    const { child, exited } = gateway;
    const pids = gateway
      .output()
      .split('\n')
      .flatMap((line) => {
        if (!line.startsWith('{')) return [];
        const entry = JSON.parse(line) as { '@message'?: string; pid?: number };
        return entry['@message'] === 'worker started' && entry.pid !== undefined ? [entry.pid] : [];
      });
    expect(pids).toHaveLength(2);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow(/ESRCH/);
  });
});
