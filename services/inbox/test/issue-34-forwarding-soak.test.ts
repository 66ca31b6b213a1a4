import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  freePort,
  quietLog,
  spawnLogged,
  startRedis,
  startTcpProxy,
  waitFor,
  type RedisServer,
  type TcpProxy,
} from '@portcullis/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonCapture } from './harness.js';
import { startNumberedTarget, type NumberedTarget } from './numbered-target.js';
import { toSingleConnection } from '@portcullis/redis';
import { createRedisStore, type RedisInboxStore } from '../src/store/redis.js';

const WORKER_MAIN = join(import.meta.dirname, '../src/worker-main.ts');
const ROUNDS = Number(process.env.SOAK_ROUNDS ?? 3);
const CAPTURES_PER_ROUND = Number(process.env.SOAK_CAPTURES ?? 1_000);
// two workers per round, each with a cold window of its own, sharing the consumer group
const WORKERS_PER_ROUND = 2;
// captures arrive a few at a time, and the workers keep up (in flight above the backlog): reads of new
// captures' histories (LRANGE) go on while the first attempts are recorded, as under the bench's steady load
const ARRIVING_PER_TICK = 8;
const TICK_MS = 2;
const MAX_IN_FLIGHT = 256;
// the workers' Redis replies come up to this late (a TCP proxy): a history lookup's batch is still due when
// the next read opens another, which ioredis holds until the first is answered
const REPLY_DELAY_MS = 15;
const ENDPOINT_ID = 'issue-34-soak-0123456789ab';

/** A worker process reaching Redis at `redisPort`, its probes on a port of its own. */
async function startWorker(name: string, redisPort: number) {
  const port = await freePort();
  const worker = spawnLogged(process.execPath, ['--import', 'tsx', WORKER_MAIN], {
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    INBOX_EGRESS_ALLOW_PRIVATE: 'true',
    INBOX_WORKER_NAME: name,
    INBOX_WORKER_PORT: String(port),
    INBOX_WORKER_POLL_INTERVAL: '50ms',
    INBOX_WORKER_CLAIM_IDLE: '30s',
    INBOX_WORKER_MAX_IN_FLIGHT: String(MAX_IN_FLIGHT),
    LOG_LEVEL: 'warn',
  });
  let died: number | null | undefined;
  void worker.exited.then((code) => (died = code));
  return {
    name,
    process: worker,
    died: () => died,
    isReady: async () =>
      (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.status === 200,
  };
}

const captureOf = (n: number) => jsonCapture(n, `/api/hook/${ENDPOINT_ID}`);

/**
 * Issue 34 item 8: the worker died (`results[i] is not iterable` from ioredis' auto-pipelining) when its
 * first record of a forward attempt met an auto-pipeline opened before the script was known. Every round
 * starts new worker processes (their clients know no script) on a flushed script cache, waits until they
 * are ready (a backlog read at start would fill every slot and hold the reads back), then sends captures a
 * few at a time while the workers' Redis replies come late and uneven through a proxy. Each worker must
 * stay up, exit 0 on SIGTERM and log no failed record; every capture must reach the target exactly once with
 * one `delivered` attempt recorded. Before the fix this killed a worker exactly as the bench did (`record
 * attempt failed: pipeline[functionName] is not a function`, then `results[i] is not iterable`) in about
 * one worker start in sixteen here: it guards the worker's exit code and deliveries, and
 * lib/redis/test/issue-34-script-first-run.test.ts is what catches the race itself, every run.
 */
describe('issue 34: the forwarding worker under load with scripts cold', () => {
  let redis: RedisServer;
  let client: Redis;
  let store: RedisInboxStore;
  let target: NumberedTarget;
  let proxy: TcpProxy;

  beforeAll(async () => {
    redis = await startRedis();
    client = new Redis(`redis://${redis.address}`);
    store = createRedisStore({
      connection: toSingleConnection(redis.address),
      prefix: 'inbox:',
      log: quietLog,
    });
    target = await startNumberedTarget((n) => 1 + (n % 3));
    proxy = await startTcpProxy(redis.port, { replyDelayMs: REPLY_DELAY_MS });
    await store.syncManagedEndpoints([
      {
        id: ENDPOINT_ID,
        name: 'soak',
        resource: 'default/soak',
        retention: { maxRequests: 1_000_000, maxAgeMs: 3_600_000 },
        forward: [
          {
            url: target.url,
            pathMode: 'append',
            enabled: true,
            timeoutSeconds: 10,
            maxAttempts: 5,
            initialDelaySeconds: 0,
            maxDelaySeconds: 0,
            maxConcurrent: MAX_IN_FLIGHT,
          },
        ],
      },
    ]);
  });
  afterAll(async () => {
    await store.close();
    client.disconnect();
    await target.close();
    await proxy.close();
    await redis.stop();
  });

  it(
    `forwards ${ROUNDS} rounds of ${CAPTURES_PER_ROUND} captures, each by new workers, without dying`,
    { timeout: 240_000 },
    async () => {
      const key = `inbox:ep:{${ENDPOINT_ID}}:req`;
      for (let round = 0; round < ROUNDS; round++) {
        await client.script('FLUSH');
        const workers = await Promise.all(
          Array.from({ length: WORKERS_PER_ROUND }, (_, w) => startWorker(`soak-${round}-${w}`, proxy.port)),
        );
        const deathReport = (): string | undefined => {
          const dead = workers.find((w) => w.died() !== undefined);
          return (
            dead && `round ${round}: ${dead.name} exited by itself:\n${dead.process.output().slice(-3000)}`
          );
        };
        try {
          const outputs = (): string => workers.map((w) => w.process.output().slice(-2000)).join('\n');
          // a generous bound: a loaded machine starts a tsx process slowly
          await waitFor(
            async () =>
              deathReport() !== undefined ||
              (await Promise.all(workers.map((w) => w.isReady()))).every(Boolean),
            Boolean,
            { timeoutMs: 60_000, what: `round ${round}: workers ready`, context: outputs },
          );
          const first = round * CAPTURES_PER_ROUND;
          for (
            let n = first;
            n < first + CAPTURES_PER_ROUND && deathReport() === undefined;
            n += ARRIVING_PER_TICK
          ) {
            const ns = Array.from({ length: ARRIVING_PER_TICK }, (_, i) => n + i).filter(
              (i) => i < first + CAPTURES_PER_ROUND,
            );
            const ids = await Promise.all(
              ns.map((i) => store.appendCapture(ENDPOINT_ID, captureOf(i), 1_000_000)),
            );
            expect(ids.every((id) => id !== undefined)).toBe(true);
            await sleep(TICK_MS);
          }
          const last = first + CAPTURES_PER_ROUND;
          await waitFor(
            async () =>
              deathReport() !== undefined ||
              (target.received.size === last &&
                ((await client.xpending(key, 'forwarders')) as [number])[0] === 0),
            Boolean,
            {
              timeoutMs: 30_000,
              what: `round ${round}: every capture delivered`,
              context: () => `${target.received.size} of ${last} delivered\n${outputs()}`,
            },
          );
          expect(deathReport()).toBeUndefined();
        } finally {
          await Promise.all(workers.map((w) => w.process.stop(5000)));
        }
        for (const w of workers) {
          expect(await w.process.exited, `round ${round}: ${w.name}: exit code after SIGTERM`).toBe(0);
          expect(w.process.output(), `round ${round}: ${w.name}`).not.toMatch(
            /record attempt failed|forwarding interrupted|TypeError/,
          );
        }
      }
      const total = ROUNDS * CAPTURES_PER_ROUND;
      expect(target.received.size).toBe(total);
      expect([...target.received].filter(([, at]) => at.length !== 1)).toEqual([]);
      // every capture's history: one delivered attempt
      const ids = (await client.xrange(key, '-', '+')).map(([id]) => id);
      expect(ids).toHaveLength(total);
      for (let i = 0; i < ids.length; i += 1000) {
        const histories = await store.listForwardHistories(ENDPOINT_ID, ids.slice(i, i + 1000));
        expect(histories.filter((h) => h.length !== 1 || h[0]?.outcome !== 'delivered')).toEqual([]);
      }
    },
  );
});
