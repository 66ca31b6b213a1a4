import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { UnavailableError } from '@portcullis/kit';
import {
  quietLog,
  startRedis,
  startRedisDeployment,
  waitUntil,
  type RedisDeployment,
} from '@portcullis/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createRedisForwardQueue,
  type RedisForwardQueue,
} from '../src/forwarding-store/redis-forward-queue.js';
import type { ForwardAttempt, ForwardingEvent } from '../src/contract/capture-records.js';
import { loadSettings, type Settings } from '../src/settings.js';
import { createRedisStore, type RedisInboxStore } from '../src/store/redis.js';
import { startWorker } from '../src/worker/worker-app.js';
import { forwardTarget, inboxRedisEnv, jsonCapture } from './harness.js';

// What the worker sends Redis for the captures of one turn goes together: the forward queue's acks (one XACK
// per endpoint) and the store's attempt records (one script call per endpoint, each attempt published). Each
// call still resolves only once Redis has it, and fails alone when its endpoint's command does.

const ENDPOINTS = ['acks-one-0123456789ab', 'acks-two-0123456789ab'];
const PER_ENDPOINT = 5;

const captureOf = (n: number) => jsonCapture(n, '/api/hook/x');

/** The store with the managed ENDPOINTS, and a forward queue reading them, on `connection`. */
async function openStoreAndQueue(
  connection: Settings['redis'],
): Promise<{ store: RedisInboxStore; queue: RedisForwardQueue }> {
  const store = createRedisStore({ connection, prefix: 'inbox:', log: quietLog });
  await store.syncManagedEndpoints(
    ENDPOINTS.map((id) => ({
      id,
      name: id,
      resource: `default/${id}`,
      retention: { maxRequests: 1000, maxAgeMs: 3_600_000 },
      forward: [forwardTarget('http://127.0.0.1:9/')],
    })),
  );
  const queue = createRedisForwardQueue({
    connection,
    prefix: 'inbox:',
    consumerName: 'acks',
    log: quietLog,
  });
  return { store, queue };
}

describe.each(['single', 'cluster'] as const)('forward queue acks on Redis %s', (type) => {
  let deployment: RedisDeployment;
  let store: RedisInboxStore;
  let queue: RedisForwardQueue;
  beforeAll(async () => {
    deployment = await startRedisDeployment(type);
    const settings = loadSettings(inboxRedisEnv(deployment));
    ({ store, queue } = await openStoreAndQueue(settings.redis));
  }, 60_000);
  afterAll(async () => {
    queue.close();
    await store.close();
    await deployment.stop();
  });

  it('acknowledges the captures of one turn over two endpoints, every one once read', async () => {
    for (const id of ENDPOINTS) {
      for (let n = 0; n < PER_ENDPOINT; n++) await store.appendCapture(id, captureOf(n), 1000);
    }
    const read = await queue.readNew(ENDPOINTS, { count: 100, blockMs: 100 });
    expect(read).toHaveLength(ENDPOINTS.length * PER_ENDPOINT);
    expect(await queue.backlog(ENDPOINTS)).toEqual({ pending: read.length, lag: 0 });
    await Promise.all(read.map((item) => queue.ack(item.endpointId, item.capture.id)));
    expect(await queue.backlog(ENDPOINTS)).toEqual({ pending: 0, lag: 0 });
  });
});

describe('worker batches on one Redis: commands and failures', () => {
  let redis: Awaited<ReturnType<typeof startRedis>>;
  let client: Redis;
  let store: RedisInboxStore;
  let queue: RedisForwardQueue;
  beforeAll(async () => {
    redis = await startRedis();
    client = new Redis(`redis://${redis.address}`);
    const settings = loadSettings({ REDIS_URL: `redis://${redis.address}` });
    ({ store, queue } = await openStoreAndQueue(settings.redis));
  }, 60_000);
  afterAll(async () => {
    queue.close();
    await store.close();
    client.disconnect();
    await redis.stop();
  });

  const calls = async (command: string): Promise<number> => {
    const stats = await client.info('commandstats');
    return Number(new RegExp(`^cmdstat_${command}:calls=(\\d+)`, 'm').exec(stats)?.[1] ?? 0);
  };
  const xackCalls = () => calls('xack');

  it('sends one XACK per endpoint for the acks of a turn', async () => {
    for (const id of ENDPOINTS) {
      for (let n = 0; n < PER_ENDPOINT; n++) await store.appendCapture(id, captureOf(n), 1000);
    }
    const read = await queue.readNew(ENDPOINTS, { count: 100, blockMs: 100 });
    const before = await xackCalls();
    await Promise.all(read.map((item) => queue.ack(item.endpointId, item.capture.id)));
    expect((await xackCalls()) - before).toBe(ENDPOINTS.length);
    expect(await queue.backlog(ENDPOINTS)).toEqual({ pending: 0, lag: 0 });
  });

  it('fails the acks of an endpoint whose XACK fails, and only those', async () => {
    const [good = ''] = ENDPOINTS;
    const bad = 'acks-bad-0123456789ab';
    await store.appendCapture(good, captureOf(0), 1000);
    const [item] = await queue.readNew([good], { count: 1, blockMs: 100 });
    await client.set(`inbox:ep:{${bad}}:req`, 'not a stream');
    const [acked, refused] = await Promise.allSettled([
      queue.ack(good, item?.capture.id ?? ''),
      queue.ack(bad, '1-1'),
    ]);
    expect(acked.status).toBe('fulfilled');
    expect(refused.status === 'rejected' && refused.reason instanceof UnavailableError).toBe(true);
    expect(await queue.backlog([good])).toEqual({ pending: 0, lag: 0 });
  });

  it('records the attempts of one turn in one script call per endpoint, publishing each', async () => {
    const [endpointId = ''] = ENDPOINTS;
    const events: ForwardingEvent[] = [];
    const watch = store.watchForwarding(endpointId, (e) => events.push(e));
    await watch.subscribed;
    const attempt = (n: number): ForwardAttempt => ({
      target: 'http://127.0.0.1:9/',
      attempt: 1,
      status: 200,
      at: new Date(0).toISOString(),
      outcome: n % 2 === 0 ? 'delivered' : 'retrying',
    });
    const ids = ['1-1', '1-2', '1-3', '1-4'];
    const before = (await calls('evalsha')) + (await calls('eval'));
    await Promise.all(ids.map((id, n) => store.recordForwardAttempt(endpointId, id, attempt(n))));
    expect((await calls('evalsha')) + (await calls('eval')) - before).toBe(1);
    for (const [n, id] of ids.entries()) {
      expect(await store.listForwardAttempts(endpointId, id)).toEqual([attempt(n)]);
      expect(await client.pttl(`inbox:ep:{${endpointId}}:fwd:${id}`)).toBeGreaterThan(3_000_000);
    }
    await waitUntil(() => events.length === ids.length, 5000);
    expect(events).toEqual(ids.map((requestId, n) => ({ requestId, ...attempt(n) })));
    watch.stop();
  });

  it("a capture recorded as delivered but not yet acknowledged (a worker killed before its turn's XACK) is acknowledged by the next worker, not sent again", async () => {
    const requests: string[] = [];
    const target = createServer((req, res) => {
      requests.push(req.url ?? '');
      req.resume().on('end', () => res.writeHead(200).end());
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(target.address() as AddressInfo).port}`;
    const endpointId = 'acks-killed-0123456789';
    await store.syncManagedEndpoints([
      {
        id: endpointId,
        name: endpointId,
        resource: `default/${endpointId}`,
        retention: { maxRequests: 1000, maxAgeMs: 3_600_000 },
        forward: [forwardTarget(url)],
      },
    ]);
    const requestId = (await store.appendCapture(endpointId, captureOf(0), 1000)) ?? '';
    // the dead worker's part: read, delivered and recorded; its ack never left
    const [read] = await queue.readNew([endpointId], { count: 1, blockMs: 100 });
    expect(read?.capture.id).toBe(requestId);
    const delivered: ForwardAttempt = {
      target: url,
      attempt: 1,
      status: 200,
      at: new Date().toISOString(),
      outcome: 'delivered',
    };
    await store.recordForwardAttempt(endpointId, requestId, delivered);
    const worker = await startWorker(
      loadSettings({
        REDIS_URL: `redis://${redis.address}`,
        INBOX_EGRESS_ALLOW_PRIVATE: 'true',
        INBOX_WORKER_NAME: 'after-the-kill',
        INBOX_WORKER_CLAIM_IDLE: '30ms',
        INBOX_WORKER_POLL_INTERVAL: '50ms',
      }),
      { log: quietLog },
    );
    try {
      await waitUntil(async () => (await queue.backlog([endpointId])).pending === 0, 10_000);
      expect(requests).toEqual([]);
      expect(await store.listForwardAttempts(endpointId, requestId)).toEqual([delivered]);
    } finally {
      await worker.close();
      target.closeAllConnections();
      await new Promise((resolve) => target.close(resolve));
    }
  });
});
