import { setTimeout as sleep } from 'node:timers/promises';
import {
  quietLog,
  REDIS_TOPOLOGIES,
  startRedis,
  startRedisDeployment,
  waitUntil,
  type LoggedProcess,
  type RedisDeployment,
  type RedisServer,
} from '@portcullis/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../src/settings.js';
import { createRedisStore } from '../src/store/redis.js';
import { forwardTarget, inboxRedisEnv, NO_FALLBACK_LIMITS, sendRaw, sessionCookie } from './harness.js';
import { spawnForwardingWorker, startNumberedTarget, type NumberedTarget } from './numbered-target.js';
import { openSse } from './sse-client.js';
import { startWorkersInbox, WORKERS_START_TIMEOUT_MS, workerPids } from './workers-inbox.js';

const ENDPOINT_ID = 'issue-37-workers-0123456789';
const CAPTURES = 200;
const MAX_IN_FLIGHT = 8;

/** `name{labels} value` of a Prometheus text, the value of the first sample whose line starts so. */
function sample(text: string, start: string): number {
  const line = text.split('\n').find((l) => l.startsWith(start));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(' ') + 1));
}

const capture = (port: number, path: string, n: number) =>
  sendRaw(port, 'POST', path, {
    rawHeaders: ['Content-Type', 'application/json'],
    body: JSON.stringify({ n }),
  });

describe.each(REDIS_TOPOLOGIES)('INBOX_WORKERS=2 on Redis %s', (type) => {
  let deployment: RedisDeployment;
  let inbox: LoggedProcess;
  let port: number;
  beforeAll(async () => {
    deployment = await startRedisDeployment(type);
    ({ inbox, port } = await startWorkersInbox({ ...NO_FALLBACK_LIMITS, ...inboxRedisEnv(deployment) }));
  }, WORKERS_START_TIMEOUT_MS);
  afterAll(async () => {
    await inbox.stop(5000);
    await deployment.stop();
  });

  it(
    'serves a live stream from the worker holding it with captures any worker took, and /metrics adds the workers up',
    { timeout: 60_000 },
    async () => {
      const created = await sendRaw(port, 'POST', '/api/endpoints');
      const endpoint = created.json as { id: string; token: string };
      const before = await sendRaw(port, 'GET', '/metrics');
      const storedBefore = sample(before.body.toString(), 'portcullis_inbox_captures_total{outcome="stored"');
      const sse = await openSse(`http://127.0.0.1:${port}/api/endpoints/${endpoint.id}/stream`, {
        token: endpoint.token,
      });
      expect(sse.status).toBe(200);
      const ids: string[] = [];
      for (let n = 0; n < 20; n++) {
        const r = await capture(port, `/api/hook/${endpoint.id}`, n);
        expect(r.status).toBe(200);
        ids.push((r.json as { requestId: string }).requestId);
      }
      await sse.waitFor(() => sse.requestIds().length === ids.length, 10_000);
      expect(sse.requestIds()).toEqual(ids);
      // the session key is the primary's: a sign-in holds on every worker
      const signUp = await sendRaw(port, 'POST', '/api/accounts', {
        body: JSON.stringify({ username: `workers-${type}`, password: 'correct horse battery' }),
        headers: { 'content-type': 'application/json', 'x-inbox-csrf': '1' },
      });
      expect(signUp.status).toBe(201);
      const cookie = sessionCookie(signUp.headers);
      for (let i = 0; i < 4; i++) {
        const session = await sendRaw(port, 'GET', '/api/session', { headers: { cookie } });
        expect(session.json).toMatchObject({ account: { username: `workers-${type}` } });
      }
      // each scrape lands on one worker, which had about half the captures: every answer holds them all
      for (let i = 0; i < 4; i++) {
        const text = (await sendRaw(port, 'GET', '/metrics')).body.toString();
        expect(sample(text, 'portcullis_inbox_captures_total{outcome="stored"') - storedBefore).toBe(20);
        expect(sample(text, 'portcullis_inbox_sse_subscribers')).toBe(1);
      }
      sse.close();
    },
  );
});

describe('INBOX_WORKERS=2 on Redis: workers killed and stopped', () => {
  let redis: RedisServer;
  let inbox: LoggedProcess;
  let port: number;
  let client: Redis;
  let target: NumberedTarget;
  const forwarders: LoggedProcess[] = [];
  const runForwarder = (name: string): LoggedProcess => {
    const p = spawnForwardingWorker({ redisAddress: redis.address, name, maxInFlight: MAX_IN_FLIGHT });
    forwarders.push(p);
    return p;
  };

  beforeAll(async () => {
    redis = await startRedis();
    client = new Redis(`redis://${redis.address}`);
    target = await startNumberedTarget(() => 20);
    const store = createRedisStore({
      connection: loadSettings({ REDIS_URL: `redis://${redis.address}` }).redis,
      prefix: 'inbox:',
      log: quietLog,
    });
    await store.syncManagedEndpoints([
      {
        id: ENDPOINT_ID,
        name: 'workers',
        resource: 'default/workers',
        retention: { maxRequests: 10_000, maxAgeMs: 3_600_000 },
        forward: [forwardTarget(target.url, { timeoutSeconds: 10 })],
      },
    ]);
    await store.close();
    ({ inbox, port } = await startWorkersInbox({
      ...NO_FALLBACK_LIMITS,
      REDIS_URL: `redis://${redis.address}`,
    }));
  }, WORKERS_START_TIMEOUT_MS);
  afterAll(async () => {
    for (const f of forwarders) await f.stop(2000);
    await inbox.stop(5000);
    client.disconnect();
    await target.close();
    await redis.stop();
  });

  it(
    'a capture worker and the forwarding worker killed mid-burst: every acknowledged capture stored once and delivered',
    { timeout: 120_000 },
    async () => {
      const firstForwarder = runForwarder('w-killed');
      const acknowledged = new Map<number, string>();
      const send = async (n: number): Promise<void> => {
        // a capture on the killed worker's connection fails unanswered: not acknowledged, maybe stored
        const r = await capture(port, `/api/hook/${ENDPOINT_ID}/n`, n).catch(() => undefined);
        if (r?.status === 200) acknowledged.set(n, (r.json as { requestId: string }).requestId);
      };
      const sending = (async () => {
        for (let n = 0; n < CAPTURES; n += 4) {
          await Promise.all([n, n + 1, n + 2, n + 3].map(send));
          await sleep(5);
        }
      })();
      await waitUntil(() => target.received.size >= CAPTURES / 5, 30_000);
      const [victim] = workerPids(inbox.child.pid ?? 0);
      process.kill(victim ?? 0, 'SIGKILL');
      firstForwarder.child.kill('SIGKILL');
      expect(await firstForwarder.exited).toBeNull();
      const killedAt = Date.now() + 500;
      await sending;
      // the primary started another worker in the dead one's place
      await waitUntil(() => workerPids(inbox.child.pid ?? 0).length === 2, 30_000);
      expect(workerPids(inbox.child.pid ?? 0)).not.toContain(victim);
      expect(acknowledged.size).toBeGreaterThan(CAPTURES / 2);

      const key = `inbox:ep:{${ENDPOINT_ID}}:req`;
      const entries = await client.xrange(key, '-', '+');
      const storedIds = new Set(entries.map(([id]) => id));
      expect([...acknowledged.values()].filter((id) => !storedIds.has(id))).toEqual([]);
      expect(entries.length).toBeLessThanOrEqual(CAPTURES);

      runForwarder('w-second');
      await waitUntil(
        async () =>
          [...acknowledged.keys()].every((n) => target.received.has(n)) &&
          ((await client.xpending(key, 'forwarders')) as [number])[0] === 0,
        60_000,
      );
      const twice = [...target.received].filter(([, at]) => at.length > 1);
      expect(twice.filter(([, at]) => at.length > 2)).toEqual([]);
      expect(twice.filter(([, at]) => (at[0] ?? 0) > killedAt)).toEqual([]);
      expect(twice.length).toBeLessThanOrEqual(MAX_IN_FLIGHT);
    },
  );

  it('drains and exits on SIGTERM, every worker with it', { timeout: 60_000 }, async () => {
    const pids = workerPids(inbox.child.pid ?? 0);
    inbox.child.kill('SIGTERM');
    expect(await inbox.exited).toBe(0);
    for (const pid of pids) expect(() => process.kill(pid, 0)).toThrow();
  });
});
