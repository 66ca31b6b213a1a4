import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createScryptHasher, type PasswordHasher } from '@portcullis/accounts';
import { PROTO_FILES, createMessageCodec } from '@portcullis/protos';
import { freePort, startRedis, waitUntil, type RedisServer } from '@portcullis/testing';
import { createSotwServer, type SotwServer } from '@portcullis/xds';
import { afterEach, describe, expect, it } from 'vitest';
import { startGateway } from '../src/app.js';
import { API_ROUTE_TYPE } from '../src/router/api-routes.js';
import { loadSettings } from '../src/settings.js';
import { quietLog, startGatewayHarness, type GatewayHarness } from './harness.js';

const codec = createMessageCodec(PROTO_FILES.portcullisConfig, 'portcullis.config.v1.ApiRoute');
const SESSION_KEYS = 'a-session-key-that-is-long-enough-0123456789';

async function probe(base: string, path: '/healthz' | '/readyz'): Promise<{ status: number; body: unknown }> {
  const res = await fetch(base + path);
  return { status: res.status, body: await res.json() };
}

/** A password check held until the test lets it finish: a request in flight for as long as the test needs. */
function heldHasher(): { hasher: PasswordHasher; release(): void; waiting(): number } {
  const cheap = createScryptHasher({ ln: 10 });
  const held: Array<() => void> = [];
  return {
    hasher: {
      hash: (p) => cheap.hash(p),
      verify: async (p, stored) => {
        await new Promise<void>((resolve) => held.push(resolve));
        return cheap.verify(p, stored);
      },
      needsRehash: (stored) => cheap.needsRehash(stored),
    },
    release: () => held.splice(0).forEach((resolve) => resolve()),
    waiting: () => held.length,
  };
}

describe('gateway health: /healthz liveness, /readyz readiness', () => {
  const cleanup: Array<() => unknown> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  it('follows the Redis connection: 503 naming redis while it is down, 200 once it is back', async () => {
    let redis: RedisServer = await startRedis();
    cleanup.push(() => redis.stop());
    const g = await startGatewayHarness({
      GATEWAY_AUTH: 'session',
      REDIS_URL: `redis://${redis.address}`,
      GATEWAY_SESSION_KEYS: SESSION_KEYS,
    });
    cleanup.push(() => g.close());
    await waitUntil(async () => (await probe(g.url, '/readyz')).status === 200);
    expect(await probe(g.url, '/readyz')).toEqual({ status: 200, body: { status: 'ready' } });

    await redis.stop();
    await waitUntil(async () => (await probe(g.url, '/readyz')).status === 503);
    expect(await probe(g.url, '/readyz')).toEqual({
      status: 503,
      body: { error: 'not ready: redis:accounts', code: 'NOT_READY' },
    });
    expect(await probe(g.url, '/healthz')).toEqual({ status: 200, body: { status: 'ok' } });

    redis = await startRedis({ port: redis.port });
    await waitUntil(async () => (await probe(g.url, '/readyz')).status === 200);
  });

  it('is not ready in xDS mode until the first routes are applied, while live all along', async () => {
    const port = await freePort();
    const xdsPort = await freePort();
    const stateDir = await mkdtemp(join(tmpdir(), 'gateway-test-'));
    cleanup.push(() => rm(stateDir, { recursive: true, force: true }));
    const starting = startGateway(
      loadSettings({
        GATEWAY_HOST: '127.0.0.1',
        GATEWAY_PORT: String(port),
        GATEWAY_STATE_DIR: stateDir,
        GATEWAY_RATELIMIT_URL: '',
        GATEWAY_XDS_SERVER_URL: `127.0.0.1:${xdsPort}`,
        GATEWAY_XDS_RETRY_INTERVAL: '100ms',
      }),
      { log: quietLog },
    );
    cleanup.push(async () => (await starting).close());
    const base = `http://127.0.0.1:${port}`;
    await waitUntil(async () => {
      try {
        return (await probe(base, '/healthz')).status === 200;
      } catch {
        return false; // not listening yet
      }
    });
    expect(await probe(base, '/readyz')).toEqual({
      status: 503,
      body: { error: 'not ready: xds', code: 'NOT_READY' },
    });

    const xds = createSotwServer({ host: '127.0.0.1', port: xdsPort, log: quietLog });
    xds.setResources(API_ROUTE_TYPE, []);
    await xds.start();
    cleanup.push(() => xds.close());
    await starting;
    expect(await probe(base, '/readyz')).toEqual({ status: 200, body: { status: 'ready' } });
  });

  it('on SIGTERM fails readiness at once and keeps serving through the drain delay', async () => {
    const g = await startGatewayHarness({ GATEWAY_SHUTDOWN_DELAY: '1s' });
    cleanup.push(() => g.close());
    const stopping = g.app.readiness.stopTraffic('SIGTERM');
    expect(await probe(g.url, '/readyz')).toEqual({
      status: 503,
      body: { error: 'not ready: shutdown', code: 'NOT_READY' },
    });
    expect(await probe(g.url, '/healthz')).toEqual({ status: 200, body: { status: 'ok' } });
    expect((await g.request('GET', '/api/test')).status).toBe(200);
    await stopping;
  });

  it('lets sign-ins in flight at close() finish against Redis: the backends close after the drain', async () => {
    const redis = await startRedis();
    cleanup.push(() => redis.stop());
    const held = heldHasher();
    let g: GatewayHarness | undefined = await startGatewayHarness(
      { GATEWAY_AUTH: 'session', REDIS_URL: `redis://${redis.address}`, GATEWAY_SESSION_KEYS: SESSION_KEYS },
      { passwordHasher: held.hasher },
    );
    cleanup.push(async () => {
      held.release();
      await g?.close();
    });
    await g.app.backend.accounts.createUser({ username: 'carol', password: 'open sesame' });
    const signIns = Array.from({ length: 2 }, () =>
      g!.request('POST', '/api/auth', { body: { username: 'carol', password: 'open sesame' } }),
    );
    await waitUntil(() => held.waiting() === 2);

    const closing = g.app.close();
    expect(g.app.readiness.failing()).toEqual(['shutdown']);
    held.release();
    const answers = await Promise.all(signIns);
    await closing;
    g = undefined;
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    for (const a of answers) expect(a.headers.get('set-cookie')).toMatch(/=/);
  });
});

describe('gateway shutdown with a slow upstream', () => {
  let upstream: { server: Server; port: number } | undefined;
  let xds: SotwServer | undefined;
  afterEach(async () => {
    upstream?.server.closeAllConnections();
    upstream?.server.close();
    await xds?.close();
  });

  it('answers every proxied request in flight at close() from the upstream, none 5xx', async () => {
    const waiting: ServerResponse[] = [];
    const server = createServer((_req: IncomingMessage, res: ServerResponse) => void waiting.push(res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    upstream = { server, port: (server.address() as AddressInfo).port };
    xds = createSotwServer({ host: '127.0.0.1', port: await freePort(), log: quietLog });
    xds.setResources(API_ROUTE_TYPE, [
      {
        name: 'demo/slow',
        value: codec.encode({
          name: 'demo/slow',
          prefix: 'v1',
          createdAt: '2026-11-22T00:00:00Z',
          routes: [
            {
              name: 'slow',
              method: 'GET',
              path: 'slow',
              auth: false,
              backend: { service: 'slow', namespace: 'demo', port: upstream.port, timeoutSeconds: 30 },
            },
          ],
        }),
      },
    ]);
    await xds.start();
    const g = await startGatewayHarness({
      GATEWAY_XDS_SERVER_URL: `127.0.0.1:${xds.port}`,
      GATEWAY_BACKEND_HOST: '127.0.0.1',
    });
    const inFlight = Array.from({ length: 4 }, () => g.request('GET', '/api/v1/slow'));
    await waitUntil(() => waiting.length === 4);

    const closing = g.close();
    for (const res of waiting) res.writeHead(200, { 'content-type': 'text/plain' }).end('slow answer');
    const answers = await Promise.all(inFlight);
    await closing;
    expect(answers.map((a) => [a.status, a.body])).toEqual(Array(4).fill([200, 'slow answer']));
  });
});
