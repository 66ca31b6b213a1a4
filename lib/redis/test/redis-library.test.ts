import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createCollectingLog,
  startRedis,
  startRedisCluster,
  waitUntil,
  type RedisCluster,
} from '@portcullis/testing';
import { Cluster } from 'ioredis';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createRedisCaller,
  createRedisPool,
  defineScript,
  FAIL_FAST_POLICY,
  NO_QUEUE_POLICY,
  registerRedisMetrics,
  toSingleConnection,
  type RedisConnection,
} from '../src/index.js';

const INCR_BOTH = defineScript(`
redis.call('INCRBY', KEYS[1], ARGV[1])
return redis.call('INCRBY', KEYS[2], ARGV[1])`);

const INCR_EACH = defineScript(
  `
local out = {}
for i = 1, #KEYS do out[i] = redis.call('INCRBY', KEYS[i], ARGV[1]) end
return out`,
  { variadicKeys: true },
);

class TestBackendError extends Error {}

describe('scripts, errors and pools on a single server', () => {
  it('resends a script in full after SCRIPT FLUSH, from a client and from a pipeline', async () => {
    const redis = await startRedis();
    const pool = createRedisPool(toSingleConnection(redis.address), { policy: FAIL_FAST_POLICY });
    try {
      const client = pool.next();
      expect(await INCR_BOTH.run(client, ['a', 'b'], [2])).toBe(2);
      await client.script('FLUSH');
      expect(await INCR_BOTH.run(client, ['a', 'b'], [3])).toBe(5);
      await client.script('FLUSH');
      const pipeline = client.pipeline();
      pipeline.get('a');
      INCR_BOTH.queue(pipeline, ['a', 'b'], [1]);
      expect(await pipeline.exec()).toEqual([
        [null, '5'],
        [null, 6],
      ]);
      expect(await client.get('a')).toBe('6');
    } finally {
      await pool.close();
      await redis.stop();
    }
  });

  it('sends any number of keys to a variadic script, from a client and from a pipeline', async () => {
    const redis = await startRedis();
    const pool = createRedisPool(toSingleConnection(redis.address), { policy: FAIL_FAST_POLICY });
    try {
      const client = pool.next();
      expect(await INCR_EACH.run(client, ['a'], [2])).toEqual([2]);
      const pipeline = client.pipeline();
      INCR_EACH.queue(pipeline, ['a', 'b', 'c'], [1]);
      INCR_EACH.queue(pipeline, [], [1]);
      expect(await pipeline.exec()).toEqual([
        [null, [3, 1, 1]],
        [null, []],
      ]);
    } finally {
      await pool.close();
      await redis.stop();
    }
  });

  it('turns failures into the package error with the cause kept; batches fail on their first error', async () => {
    const redis = await startRedis();
    const pool = createRedisPool(toSingleConnection(redis.address), { policy: FAIL_FAST_POLICY });
    const caller = createRedisCaller(
      'test store',
      (message, cause) => new TestBackendError(message, { cause }),
    );
    try {
      const client = pool.next();
      await client.set('s', 'text');
      const failed = caller.call('INCR', () => client.incr('s'));
      await expect(failed).rejects.toThrow(new TestBackendError('test store: redis INCR failed'));
      expect(((await failed.catch((e: unknown) => e)) as Error).cause).toBeInstanceOf(Error);
      await expect(caller.exec('batch', client.multi().get('s').incr('s'))).rejects.toBeInstanceOf(
        TestBackendError,
      );
      expect(await caller.exec('batch', client.multi().get('s').strlen('s'))).toEqual(['text', 4]);
    } finally {
      await pool.close();
      await redis.stop();
    }
  });

  it('logs one warning per outage, not one per retry, counts connections in the metrics', async () => {
    const redis = await startRedis();
    const { log, lines } = createCollectingLog();
    const pool = createRedisPool(toSingleConnection(redis.address), { policy: FAIL_FAST_POLICY, log });
    const registry = new Registry();
    registerRedisMetrics(registry, 'test', pool);
    try {
      await pool.ready();
      expect(await registry.getSingleMetricAsString('redis_connections_active')).toContain(
        'redis_connections_active{pool="test"} 1',
      );
      await redis.stop();
      await waitUntil(() => pool.stats.errors >= 3);
      const warnings = lines.filter((l) => l['@message'] === 'redis connection error');
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({ component: 'redis', type: 'single', url: redis.address });
      expect(await registry.getSingleMetricAsString('redis_connections_active')).toContain(
        'redis_connections_active{pool="test"} 0',
      );
      expect(await registry.getSingleMetricAsString('redis_connections_total')).toContain(
        'redis_connections_total{pool="test"} 1',
      );
    } finally {
      await pool.close();
    }
  });
});

describe('single server addresses', () => {
  it('reaches a server by host:port, by redis:// URL (its database and password) and by unix socket', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'redis-socket-'));
    const socket = join(dir, 'redis.sock');
    const redis = await startRedis({ args: ['--unixsocket', socket, '--requirepass', 'pw'] });
    const connections: RedisConnection[] = [
      { ...toSingleConnection(redis.address), auth: 'pw' },
      toSingleConnection(`redis://:pw@${redis.address}/2`),
      { ...toSingleConnection(socket), auth: 'default:pw' },
    ];
    const pools = connections.map((c) => createRedisPool(c, { policy: FAIL_FAST_POLICY }));
    try {
      const [byAddress, byUrl, bySocket] = pools.map((p) => p.next());
      await byUrl?.set('k', 'in db 2');
      await byAddress?.set('k', 'in db 0');
      expect(await bySocket?.get('k')).toBe('in db 0');
      expect(await byUrl?.get('k')).toBe('in db 2');
    } finally {
      await Promise.all(pools.map((p) => p.close()));
      await redis.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('scripts on a cluster', () => {
  let cluster: RedisCluster;
  let connection: RedisConnection;
  beforeAll(async () => {
    cluster = await startRedisCluster(3);
    connection = { ...toSingleConnection(''), type: 'cluster', url: cluster.url };
  }, 60_000);
  afterAll(async () => cluster.stop());

  it('runs on the node of its keys (one hash tag), resends after SCRIPT FLUSH, refuses keys across slots', async () => {
    const pool = createRedisPool(connection, { policy: FAIL_FAST_POLICY });
    try {
      const client = pool.next();
      const results: unknown[] = [];
      for (const tag of ['x', 'y', 'z', 'w']) {
        results.push(await INCR_BOTH.run(client, [`{${tag}}a`, `{${tag}}b`], [2]));
      }
      expect(results).toEqual([2, 2, 2, 2]);
      if (!(client instanceof Cluster)) throw new Error('not a cluster client');
      await Promise.all(client.nodes('master').map((n) => n.script('FLUSH')));
      expect(await INCR_BOTH.run(client, ['{x}a', '{x}b'], [1])).toBe(3);
      await expect(INCR_BOTH.run(client, ['a', 'b'], [1])).rejects.toThrow(/CROSSSLOT|same slot/);
    } finally {
      await pool.close();
    }
  });

  it("joins the auto-pipelined batch of its keys' node, among other commands sent in the same turn", async () => {
    // ioredis routes an auto-pipelined command by its first argument: the key count, before numberOfKeys
    // was declared, so the script joined another node's batch and Redis refused the whole batch
    const pool = createRedisPool(connection, { policy: NO_QUEUE_POLICY });
    try {
      const client = pool.next();
      INCR_BOTH.define(client);
      await pool.ready();
      const tags = ['p', 'q', 'r', 's', 't', 'u'];
      const replies = await Promise.all(
        tags.flatMap((tag) => [
          INCR_BOTH.run(client, [`{${tag}}a`, `{${tag}}b`], [5]),
          client.incrby(`plain-${tag}`, 1),
        ]),
      );
      expect(replies).toEqual(tags.flatMap(() => [5, 1]));
      await expect(INCR_BOTH.run(client, ['{p}a'], [1])).rejects.toThrow('given 1 keys, it uses 2');
    } finally {
      await pool.close();
    }
  });

  it("runs a variadic script in its keys' node's auto-pipelined batch (EVAL routes by the first key)", async () => {
    const pool = createRedisPool(connection, { policy: FAIL_FAST_POLICY });
    try {
      const client = pool.next();
      await pool.ready();
      const tags = ['v1', 'v2', 'v3', 'v4', 'v5', 'v6'];
      const replies = await Promise.all(
        tags.flatMap((tag) => [
          INCR_EACH.run(client, [`{${tag}}a`, `{${tag}}b`, `{${tag}}c`], [2]),
          client.incrby(`plain-${tag}`, 1),
        ]),
      );
      expect(replies).toEqual(tags.flatMap(() => [[2, 2, 2], 1]));
    } finally {
      await pool.close();
    }
  });
});
