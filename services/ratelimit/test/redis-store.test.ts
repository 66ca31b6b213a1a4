import { toSingleConnection } from '@portcullis/redis';
import { quietLog, redisCli, withRedis } from '@portcullis/testing';
import { describe, expect, it } from 'vitest';
import { createRedisStore } from '../src/backends/redis.js';
import type { BucketTake, CounterIncrement, CounterStore } from '../src/backends/types.js';
import { BackendError } from '../src/errors.js';
import { Stats } from '../src/stats/stats.js';

const increment = (key: string): CounterIncrement => ({
  kind: 'increment',
  key,
  hits: 1,
  ttlSeconds: 60,
  unitSeconds: 60,
});

async function readsProcessed(port: number): Promise<number> {
  return Number(/^total_reads_processed:(\d+)/m.exec(await redisCli(port, 'INFO', 'stats'))?.[1]);
}

async function scriptCalls(port: number): Promise<number> {
  const stats = await redisCli(port, 'INFO', 'commandstats');
  return [...stats.matchAll(/^cmdstat_eval(?:sha)?:calls=(\d+)/gm)].reduce((n, m) => n + Number(m[1]), 0);
}

async function withStore(
  fn: (store: CounterStore, port: number) => Promise<void>,
  o: { auth?: string; beforeConnect?: (port: number) => Promise<void> } = {},
): Promise<void> {
  await withRedis(async (redis) => {
    await o.beforeConnect?.(redis.port);
    const store = createRedisStore({
      connection: {
        ...toSingleConnection(redis.address),
        auth: o.auth ?? '',
        pipelineWindowMs: 0,
        pipelineLimit: 0,
        clusterPipelineParallelism: 0,
      },
      log: quietLog,
      stats: new Stats(),
      statsPrefix: 'ratelimit.redis_pool',
    });
    try {
      await store.ready();
      await fn(store, redis.port);
    } finally {
      await store.close();
    }
  });
}

describe('the Redis counter store', () => {
  it('sends the ops of the requests of one event-loop turn in one pipeline, without a window', async () => {
    await withStore(async (store, port) => {
      const first = await readsProcessed(port);
      // what reading the figure costs: redis-cli's own commands
      const before = await readsProcessed(port);
      const answers = await Promise.all([
        store.run([increment('a'), increment('b')]),
        store.run([increment('a')]),
        store.run([{ kind: 'read', key: 'b', unitSeconds: 60 }]),
      ]);
      expect((await readsProcessed(port)) - before).toBe(before - first + 1);
      expect(answers).toEqual([[1, 1], [2], [1]]);
    });
  });

  it('fails only the request whose own command failed', async () => {
    await withStore(async (store, port) => {
      await redisCli(port, 'RPUSH', 'listed', 'x');
      const [wrong, right] = await Promise.allSettled([
        store.run([increment('listed')]),
        store.run([increment('fine')]),
      ]);
      expect(wrong.status === 'rejected' && wrong.reason).toBeInstanceOf(BackendError);
      expect(right).toEqual({ status: 'fulfilled', value: [1] });
    });
  });

  it('counts, expires and reads as INCRBY + EXPIRE and GET would, takes beside them, in one turn', async () => {
    await withStore(async (store, port) => {
      const first = await readsProcessed(port);
      const before = await readsProcessed(port);
      const take: BucketTake = {
        kind: 'take',
        key: 'bucket',
        unitSeconds: 1,
        nowUs: 1_000_000,
        costUs: 100_000,
        capacityUs: 1_000_000,
      };
      const answers = await Promise.all([
        store.run([{ ...increment('a'), hits: 5, ttlSeconds: 30 }, take]),
        store.run([{ kind: 'read', key: 'absent', unitSeconds: 60 }, increment('a')]),
        store.run([{ kind: 'read', key: 'a', unitSeconds: 60 }]),
      ]);
      const after = await readsProcessed(port);
      expect(answers).toEqual([[5, 1_100_000], [0, 6], [6]]);
      // one round trip, the counters script and the bucket script: the only scripts Redis ran
      expect(after - before).toBe(before - first + 1);
      expect(await scriptCalls(port)).toBe(2);
      expect(Number(await redisCli(port, 'TTL', 'a'))).toBeGreaterThan(55);
      expect(await redisCli(port, 'EXISTS', 'absent')).toBe('0');
    });
  });

  it('answers every op of a turn larger than one script call, in order', async () => {
    await withStore(async (store) => {
      const requests = Array.from({ length: 700 }, (_, i) => [increment(`k${i % 350}`)]);
      const answers = await Promise.all(requests.map((ops) => store.run(ops)));
      expect(answers).toEqual(requests.map((_, i) => [i < 350 ? 1 : 2]));
    });
  });

  it('sends the script again after the server lost it (SCRIPT FLUSH, a failover)', async () => {
    await withStore(async (store, port) => {
      expect(await store.run([increment('a')])).toEqual([1]);
      await redisCli(port, 'SCRIPT', 'FLUSH');
      expect(await store.run([increment('a')])).toEqual([2]);
    });
  });

  it('fails decisions with what Redis answers when an ACL forbids scripts', async () => {
    await withStore(
      async (store) => {
        const err = await store.run([increment('a')]).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(BackendError);
        expect((err as Error).message).toMatch(/^redis: NOPERM/);
      },
      {
        auth: 'counter:secret',
        beforeConnect: async (port) => {
          await redisCli(port, 'ACL', 'SETUSER', 'counter', 'on', '>secret', '~*', '+@all', '-@scripting');
        },
      },
    );
  });
});
