import { toSingleConnection } from '@portcullis/redis';
import { quietLog, redisCli, withRedis } from '@portcullis/testing';
import { describe, expect, it } from 'vitest';
import { createRedisStore } from '../src/backends/redis.js';
import type { CounterIncrement, CounterStore } from '../src/backends/types.js';
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

async function withStore(fn: (store: CounterStore, port: number) => Promise<void>): Promise<void> {
  await withRedis(async (redis) => {
    const store = createRedisStore({
      connection: { ...toSingleConnection(redis.address), pipelineWindowMs: 0, pipelineLimit: 0 },
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
});
