import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ForwardTarget } from '@portcullis/config';
import { freePort, startRedis, type RedisServer } from '@portcullis/testing';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../src/settings.js';
import type { ForwardAttempt } from '../src/contract/capture-records.js';
import type { ManagedEndpoint } from '../src/store/types.js';
import { startWorker, type WorkerApp } from '../src/worker/worker-app.js';
import {
  ADMIN_TOKEN,
  forwardTarget,
  quietLog,
  startInboxHarness,
  waitUntil,
  type InboxHarness,
} from './harness.js';

/** A forward target that answers each request with `status`, or holds it until `release()` when `hold`. */
async function startTarget(o: { status: number; hold?: boolean }) {
  const held: ServerResponse[] = [];
  let received = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received++;
      if (o.hold) held.push(res);
      else res.writeHead(o.status).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received: () => received,
    release: () => held.splice(0).forEach((res) => res.writeHead(o.status).end()),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function probe(base: string, path: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(base + path);
  return { status: res.status, body: await res.json() };
}

let redis: RedisServer;
let h: InboxHarness;
let client: Redis;
const cleanup: Array<() => unknown> = [];

beforeAll(async () => {
  redis = await startRedis();
  h = await startInboxHarness({ REDIS_URL: `redis://${redis.address}` });
  client = new Redis(`redis://${redis.address}`);
  client.on('error', () => undefined); // Redis is stopped on purpose below
});
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});
afterAll(async () => {
  client.disconnect();
  await h.close();
  await redis.stop();
});

const workerSettings = (name: string, port = 0) =>
  loadSettings({
    REDIS_URL: `redis://${redis.address}`,
    INBOX_HOST: '127.0.0.1',
    INBOX_WORKER_PORT: String(port),
    INBOX_EGRESS_ALLOW_PRIVATE: 'true',
    INBOX_WORKER_NAME: name,
    INBOX_WORKER_CLAIM_IDLE: '300ms',
    INBOX_WORKER_POLL_INTERVAL: '100ms',
  });

async function runWorker(name: string): Promise<{ worker: WorkerApp; url: string }> {
  const worker = await startWorker(workerSettings(name), { log: quietLog });
  cleanup.push(() => worker.close());
  return { worker, url: `http://127.0.0.1:${worker.port}` };
}

const managed: ManagedEndpoint[] = [];

/** Adds a managed endpoint to the set synced (a sync replaces the whole set). */
async function addEndpoint(name: string, forward: ForwardTarget[]): Promise<string> {
  const id = `health-${name}-0123456789abcdef`;
  managed.push({
    id,
    name,
    resource: `default/${name}`,
    retention: { maxRequests: 100, maxAgeMs: 3_600_000 },
    forward,
  });
  await h.app.store.syncManagedEndpoints(managed);
  return id;
}

async function capture(id: string, path: string): Promise<string> {
  const r = await h.send('POST', `/api/hook/${id}${path}`, { body: '{}' });
  return (r.json as { requestId: string }).requestId;
}

async function forwarding(id: string, requestId: string): Promise<ForwardAttempt[]> {
  const r = await h.api('GET', `/api/endpoints/${id}/requests/${requestId}`, { token: ADMIN_TOKEN });
  return (r.json as { forwarding: ForwardAttempt[] }).forwarding;
}

const pendingCount = async (id: string): Promise<number> =>
  ((await client.xpending(`inbox:ep:{${id}}:req`, 'forwarders')) as [number])[0];

describe('forwarding worker: probes and metrics on INBOX_WORKER_PORT', () => {
  it('is live and ready once its loop runs, and counts deliveries by outcome, retries and dead letters', async () => {
    const ok = await startTarget({ status: 200 });
    const down = await startTarget({ status: 503 });
    cleanup.push(ok.close, down.close);
    const good = await addEndpoint('good', [forwardTarget(ok.url)]);
    const bad = await addEndpoint('bad', [forwardTarget(down.url, { maxAttempts: 2 })]);
    const { url } = await runWorker('w-metrics');
    expect(await probe(url, '/healthz')).toEqual({ status: 200, body: { status: 'ok' } });
    await waitUntil(async () => (await probe(url, '/readyz')).status === 200);

    const delivered = await capture(good, '/a');
    const dead = await capture(bad, '/b');
    await waitUntil(async () => (await forwarding(good, delivered)).some((a) => a.outcome === 'delivered'));
    await waitUntil(async () => (await forwarding(bad, dead)).some((a) => a.outcome === 'dead'));
    await waitUntil(async () => (await pendingCount(good)) + (await pendingCount(bad)) === 0);

    const metrics = await (await fetch(`${url}/metrics`)).text();
    const value = (line: string): string | undefined =>
      new RegExp(`^${line.replace(/[{}]/g, '\\$&')} (\\S+)$`, 'm').exec(metrics)?.[1];
    const labels = (extra: string) => `{${extra}${extra ? ',' : ''}component="inbox-worker"}`;
    expect({
      delivered: value(`portcullis_inbox_forward_deliveries_total${labels('outcome="delivered"')}`),
      retrying: value(`portcullis_inbox_forward_deliveries_total${labels('outcome="retrying"')}`),
      dead: value(`portcullis_inbox_forward_deliveries_total${labels('outcome="dead"')}`),
      retries: value(`portcullis_inbox_forward_retries_total${labels('')}`),
      deadLetters: value(`portcullis_inbox_forward_dead_letters${labels('')}`),
      pending: value(`portcullis_inbox_forward_pending${labels('')}`),
      lag: value(`portcullis_inbox_forward_lag${labels('')}`),
      inFlight: value(`portcullis_inbox_forward_in_flight${labels('')}`),
    }).toEqual({
      delivered: '1',
      retrying: '1',
      dead: '1',
      retries: '1',
      deadLetters: '1',
      pending: '0',
      lag: '0',
      inFlight: '0',
    });
  });

  it('is not ready (consumer loop) from before its port opens until its loop has gone round', async () => {
    // the loop's first round creates the consumer groups, a write: held while Redis pauses writes
    await addEndpoint('order', [forwardTarget('http://127.0.0.1:9')]);
    await client.call('CLIENT', 'PAUSE', '30000', 'WRITE');
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const starting = startWorker(workerSettings('w-order', port), { log: quietLog });
    cleanup.push(async () => (await starting).close());
    try {
      await waitUntil(async () => {
        try {
          return (await probe(url, '/healthz')).status === 200;
        } catch {
          return false; // not listening yet
        }
      });
      // from the first answer on (its Redis connections may still be connecting then)
      expect(JSON.stringify((await probe(url, '/readyz')).body)).toMatch(/not ready: .*consumer loop/);
      await waitUntil(async () =>
        JSON.stringify((await probe(url, '/readyz')).body).includes('"not ready: consumer loop"'),
      );
      expect(await probe(url, '/readyz')).toEqual({
        status: 503,
        body: { error: 'not ready: consumer loop', code: 'NOT_READY' },
      });
    } finally {
      await client.call('CLIENT', 'UNPAUSE');
    }
    await starting;
    expect(await probe(url, '/readyz')).toEqual({ status: 200, body: { status: 'ready' } });
  });

  it('is not ready while Redis is down, naming both connections, and ready again once it is back', async () => {
    const { url } = await runWorker('w-redis');
    await waitUntil(async () => (await probe(url, '/readyz')).status === 200);
    const port = redis.port;
    await redis.stop();
    try {
      await waitUntil(async () =>
        JSON.stringify((await probe(url, '/readyz')).body).includes('redis:store, redis:queue'),
      );
      expect(await probe(url, '/readyz')).toEqual({
        status: 503,
        body: { error: 'not ready: redis:store, redis:queue', code: 'NOT_READY' },
      });
      expect(await probe(url, '/healthz')).toEqual({ status: 200, body: { status: 'ok' } });
    } finally {
      redis = await startRedis({ port });
    }
    await waitUntil(async () => (await probe(url, '/readyz')).status === 200, 10_000);
    // the inbox's connections come back too; later tests use them
    await waitUntil(async () => (await probe(h.url, '/readyz')).status === 200, 10_000);
  });

  it('on close stops reading, finishes every delivery under way and acknowledges it: none lost, none sent twice', async () => {
    const slow = await startTarget({ status: 200, hold: true });
    cleanup.push(slow.close);
    const id = await addEndpoint('slow', [forwardTarget(slow.url)]);
    const { worker, url } = await runWorker('w-drain');
    const ids = [await capture(id, '/1'), await capture(id, '/2'), await capture(id, '/3')];
    await waitUntil(() => slow.received() === 3);

    const closing = worker.close();
    // probes answer through the drain: not ready, still live
    expect(await probe(url, '/readyz')).toMatchObject({ status: 503, body: { code: 'NOT_READY' } });
    expect(((await probe(url, '/readyz')).body as { error: string }).error).toMatch(/^not ready: shutdown/);
    expect(await probe(url, '/healthz')).toEqual({ status: 200, body: { status: 'ok' } });
    slow.release();
    await closing;

    for (const requestId of ids) {
      expect((await forwarding(id, requestId)).map((a) => [a.attempt, a.status, a.outcome])).toEqual([
        [1, 200, 'delivered'],
      ]);
    }
    expect(await pendingCount(id)).toBe(0);
    expect(slow.received()).toBe(3);
  });
});
