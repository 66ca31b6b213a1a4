import { setTimeout as sleep } from 'node:timers/promises';
import { startRedis, type LoggedProcess, type RedisServer } from '@portcullis/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnForwardingWorker, startNumberedTarget, type NumberedTarget } from './numbered-target.js';
import { startInboxHarness, waitUntil, type InboxHarness } from './harness.js';

const CAPTURES = 240;
const MAX_IN_FLIGHT = 16;
const ENDPOINT_ID = 'fault-worker-kill-0123456789';

/**
 * The forwarding worker as its own process (`worker-main.ts`, one node process: SIGKILL reaches the worker
 * itself, not a wrapper), killed with SIGKILL mid-delivery while captures keep coming. The README's
 * at-least-once window: a capture is sent again only when the worker died between sending it and recording
 * the outcome, so duplicates are among the deliveries in flight at the kill, at most `INBOX_WORKER_MAX_IN_FLIGHT`.
 */
describe('the forwarding worker killed mid-delivery (SIGKILL)', () => {
  let redis: RedisServer;
  let h: InboxHarness;
  let client: Redis;
  let target: NumberedTarget;
  const workers: LoggedProcess[] = [];
  const runWorker = (name: string): LoggedProcess => {
    const p = spawnForwardingWorker({ redisAddress: redis.address, name, maxInFlight: MAX_IN_FLIGHT });
    workers.push(p);
    return p;
  };

  beforeAll(async () => {
    redis = await startRedis();
    h = await startInboxHarness({ REDIS_URL: `redis://${redis.address}` });
    client = new Redis(`redis://${redis.address}`);
    target = await startNumberedTarget(() => 40);
    await h.app.store.syncManagedEndpoints([
      {
        id: ENDPOINT_ID,
        name: 'kill',
        resource: 'default/kill',
        retention: { maxRequests: 10_000, maxAgeMs: 3_600_000 },
        forward: [
          {
            url: target.url,
            pathMode: 'append',
            enabled: true,
            timeoutSeconds: 10,
            maxAttempts: 5,
            initialDelaySeconds: 0,
            maxDelaySeconds: 0,
            maxConcurrent: 32,
          },
        ],
      },
    ]);
  });
  afterAll(async () => {
    for (const w of workers) await w.stop(2000);
    client.disconnect();
    await target.close();
    await h.close();
    await redis.stop();
  });

  it(
    'loses no acknowledged capture, and sends again only what was in flight at the kill',
    { timeout: 90_000 },
    async () => {
      const first = runWorker('w-killed');
      const acknowledged = new Map<number, string>();
      const send = async (n: number): Promise<void> => {
        const r = await h.send('POST', `/api/hook/${ENDPOINT_ID}/n`, {
          rawHeaders: ['Content-Type', 'application/json'],
          body: JSON.stringify({ n }),
        });
        if (r.status === 200) acknowledged.set(n, (r.json as { requestId: string }).requestId);
      };
      let killedAt = 0;
      const sending = (async () => {
        for (let n = 0; n < CAPTURES; n += 4) {
          await Promise.all([n, n + 1, n + 2, n + 3].map(send));
          await sleep(5);
        }
      })();
      await waitUntil(() => target.received.size >= CAPTURES / 4, 20_000);
      first.child.kill('SIGKILL');
      expect(await first.exited).toBeNull(); // killed by the signal, not exited by itself
      // what it wrote just before may still be in the target's socket; the next worker starts seconds later
      killedAt = Date.now() + 500;
      await sending;
      expect(acknowledged.size).toBe(CAPTURES);

      runWorker('w-second');
      const key = `inbox:ep:{${ENDPOINT_ID}}:req`;
      await waitUntil(
        async () =>
          target.received.size === CAPTURES &&
          ((await client.xpending(key, 'forwarders')) as [number])[0] === 0,
        40_000,
      );
      const twice = [...target.received].filter(([, at]) => at.length > 1);
      expect([...acknowledged.keys()].filter((n) => !target.received.has(n))).toEqual([]);
      expect(twice.filter(([, at]) => at.length > 2)).toEqual([]);
      // only deliveries that had reached the target before the kill are repeated, at most one window's worth
      expect(twice.filter(([, at]) => (at[0] ?? 0) > killedAt)).toEqual([]);
      expect(twice.length).toBeLessThanOrEqual(MAX_IN_FLIGHT);
    },
  );
});
