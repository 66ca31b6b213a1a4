import { setTimeout as sleep } from 'node:timers/promises';
import {
  startRedis,
  startRedisCluster,
  startTcpProxy,
  type RedisCluster,
  type RedisServer,
} from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createRedisPool,
  defineScript,
  FAIL_FAST_POLICY,
  toSingleConnection,
  type RedisConnection,
} from '../src/index.js';

/** A script no client has run: a new text each call, so each test meets it cold. */
let scripts = 0;
const coldScript = () =>
  defineScript(`-- ${scripts++}\nredis.call('RPUSH', KEYS[1], ARGV[1])\nreturn redis.call('LLEN', KEYS[1])`);

/** Uncaught exceptions while `fn` runs (ioredis threw `results[i] is not iterable` from a timer). */
async function collectUncaught(fn: () => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  const onUncaught = (err: Error): void => void seen.push(err.message);
  // vitest's own listener reports them as errors of the run; this one names them in the assertion
  process.prependListener('uncaughtException', onUncaught);
  try {
    await fn();
    await sleep(50);
  } finally {
    process.off('uncaughtException', onUncaught);
  }
  return seen;
}

/**
 * Issue 34 item 8. ioredis holds an auto-pipeline opened while the connection's (or slot group's) previous
 * one awaits its replies; a command `defineCommand` added after that pipeline was made is missing from it.
 * A script's first run used to define the command, wait one setImmediate and call it: into the held
 * pipeline, which refused it after queueing its reply callback, so the pipeline's replies went to the wrong
 * callers and ioredis threw `results[i] is not iterable` from a timer.
 */
describe.each(['single', 'cluster'] as const)('issue 34: a script run first on a busy %s client', (type) => {
  let server: RedisServer | RedisCluster;
  let connection: RedisConnection;
  beforeAll(async () => {
    if (type === 'single') {
      const redis = await startRedis();
      server = redis;
      connection = toSingleConnection(redis.address);
    } else {
      const cluster = await startRedisCluster(3);
      server = cluster;
      connection = { ...toSingleConnection(''), type: 'cluster', url: cluster.url };
    }
  });
  afterAll(async () => server.stop());

  it('joins a batch held behind one awaiting replies; every caller gets its own reply', async () => {
    const pool = createRedisPool(connection, { policy: FAIL_FAST_POLICY });
    const client = pool.next();
    const script = coldScript();
    try {
      await pool.ready();
      await client.mset('{t}a', 'A', '{t}b', 'B');
      const replies: unknown[] = [];
      const uncaught = await collectUncaught(async () => {
        // a batch on the wire for 200 ms: the next one is held until it is answered
        const slow = client.blpop('{t}empty', 0.2);
        await new Promise(setImmediate);
        const held = client.get('{t}a');
        const first = script.run(client, ['{t}list'], ['x']);
        const after = new Promise(setImmediate).then(() =>
          Promise.all([client.get('{t}a'), client.get('{t}b')]),
        );
        replies.push(...(await Promise.all([slow, held, first, after])));
      });
      expect(uncaught).toEqual([]);
      expect(replies).toEqual([null, 'A', 1, ['A', 'B']]);
    } finally {
      await pool.close();
    }
  });
});

/**
 * The same race as it comes, unarranged: forwards arriving every millisecond each read (LRANGE) and then
 * record (a cold script) on one auto-pipelining client whose replies come up to 4 ms late (a TCP proxy).
 * On the code before the fix its first round failed in every run (a rejected record, lost replies and an
 * uncaught `results[i] is not iterable`).
 */
describe('issue 34: soak of first script runs on an auto-pipelining client', () => {
  const ROUNDS = 8;
  const FORWARDS = 800;
  const ARRIVING_PER_MS = 4;
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => redis.stop());

  it(
    `${ROUNDS} rounds of ${FORWARDS} forwards, a new client and a cold script each`,
    { timeout: 60_000 },
    async () => {
      const failures: string[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const proxy = await startTcpProxy(redis.port, { replyDelayMs: 4 });
        const pool = createRedisPool(toSingleConnection(`127.0.0.1:${proxy.port}`), {
          policy: FAIL_FAST_POLICY,
        });
        const client = pool.next();
        const record = coldScript();
        try {
          await pool.ready();
          const uncaught = await collectUncaught(async () => {
            const forward = async (i: number): Promise<void> => {
              const key = `soak:${round}:${i}`;
              const history = await client.lrange(key, 0, -1);
              if (history.length !== 0) failures.push(`round ${round}: LRANGE ${key}: ${String(history)}`);
              await sleep(1 + (i % 3));
              const length = await record.run(client, [key], ['delivered']);
              if (length !== 1) failures.push(`round ${round}: record ${key}: ${String(length)}`);
            };
            const all: Array<Promise<unknown>> = [];
            for (let i = 0; i < FORWARDS; i += ARRIVING_PER_MS) {
              for (let j = i; j < i + ARRIVING_PER_MS; j++) {
                all.push(
                  forward(j).catch((e: unknown) => failures.push(`round ${round}: ${(e as Error).message}`)),
                );
              }
              await sleep(1);
            }
            const lost = await Promise.race([
              Promise.all(all).then(() => false),
              sleep(5_000).then(() => true),
            ]);
            if (lost) failures.push(`round ${round}: forwards unanswered after 5 s`);
          });
          failures.push(...uncaught.map((m) => `round ${round}: uncaught ${m}`));
        } finally {
          pool.clients.forEach((c) => c.disconnect());
          await proxy.close();
        }
        // a failed round waits 5 s for its lost replies: one is enough
        if (failures.length > 0) break;
      }
      expect([...new Set(failures)]).toEqual([]);
    },
  );
});
