import { Cluster } from 'ioredis';
import { withSpan, type Logger } from '@portcullis/kit';
import type { KvstoreConnection } from './backend-settings.js';
import { BackendError } from '../errors.js';
import { createRedisPool, NO_QUEUE_POLICY, type RedisClient, type RedisPool } from '@portcullis/redis';
import { BUCKET_TAKE, queueBucketTake, sendBucketTake } from './redis-scripts.js';
import type { Stats } from '../stats/stats.js';
import type { CounterOp, CounterStore } from './types.js';

export interface RedisStoreOptions {
  connection: KvstoreConnection;
  log: Logger;
  /**
   * Upstream's pool statistics under `<statsPrefix>.`: `cx_active` (connections up), `cx_total`
   * (connections made), `cx_local_close` (connections this process closed).
   */
  stats: Stats;
  statsPrefix: string;
  /** Called with true when a first connection is up and false when none is left. */
  onConnectedChange?: (connected: boolean) => void;
}

/**
 * Counters in Redis (single, sentinel or cluster): `INCRBY` + `EXPIRE` per increment, `GET` per read, the
 * bucket script per take (one key each). For single and sentinel the commands of one `run` go in one
 * explicit pipeline, one round trip as upstream; for a cluster they are grouped per node, so keys on
 * different slots never meet in one multi-key command.
 * `KVSTORE_POOL_SIZE` clients are used round-robin.
 */
export function createRedisStore(o: RedisStoreOptions): CounterStore {
  const c = o.connection;
  const pool = createRedisPool(c, { policy: NO_QUEUE_POLICY, log: o.log });
  for (const client of pool.clients) BUCKET_TAKE.define(client);
  const stats = exposePoolStats(pool, o);

  const send = async (ops: readonly CounterOp[]): Promise<number[]> => {
    const client = pool.next();
    let values: unknown[];
    try {
      values = client instanceof Cluster ? await sendPerNode(client, ops) : await sendPipeline(client, ops);
    } catch (err: unknown) {
      throw new BackendError(`redis: ${(err as Error).message}`, { cause: err });
    }
    return values.map(Number);
  };

  return {
    run(ops: readonly CounterOp[]) {
      return withSpan('portcullis-ratelimit', 'Redis Pipeline Execution', () => send(ops));
    },
    supportsTokenBuckets: true,
    ready: () => pool.ready(),
    async close() {
      stats.closingLocally();
      await pool.close();
    },
  };
}

/** One reply per op: the INCRBY's (its EXPIRE's is skipped), the GET's (null = 0) or the script's. */
async function sendPipeline(client: Exclude<RedisClient, Cluster>, ops: readonly CounterOp[]) {
  const pipeline = client.pipeline();
  const replyIndex: number[] = [];
  let sent = 0;
  for (const op of ops) {
    replyIndex.push(sent);
    switch (op.kind) {
      case 'increment':
        pipeline.incrby(op.key, op.hits).expire(op.key, op.ttlSeconds);
        sent += 2;
        break;
      case 'read':
        pipeline.get(op.key);
        sent += 1;
        break;
      case 'take':
        queueBucketTake(pipeline, op);
        sent += 1;
        break;
      default: {
        const unknown: never = op;
        throw new Error(`unknown op ${String(unknown)}`);
      }
    }
  }
  const replies = (await pipeline.exec()) ?? [];
  for (const [err] of replies) if (err) throw err;
  return replyIndex.map((i) => replies[i]?.[1] ?? 0);
}

/** Auto-pipelining sends the commands issued here in one write per node, each key's commands in order. */
function sendPerNode(client: Cluster, ops: readonly CounterOp[]): Promise<unknown[]> {
  return Promise.all(
    ops.map((op): Promise<unknown> => {
      switch (op.kind) {
        case 'increment': {
          const value = client.incrby(op.key, op.hits);
          return Promise.all([value, client.expire(op.key, op.ttlSeconds)]).then(([v]) => v);
        }
        case 'read':
          return client.get(op.key).then((v) => v ?? 0);
        case 'take':
          return sendBucketTake(client, op);
        default: {
          const unknown: never = op;
          throw new Error(`unknown op ${String(unknown)}`);
        }
      }
    }),
  );
}

function exposePoolStats(pool: RedisPool, o: RedisStoreOptions): { closingLocally(): void } {
  const total = o.stats.namedCounter(`${o.statsPrefix}.cx_total`);
  const localClose = o.stats.namedCounter(`${o.statsPrefix}.cx_local_close`);
  o.stats.gauge(`${o.statsPrefix}.cx_active`, () => pool.stats.active);
  for (const client of pool.clients) client.on('ready', () => total.value++);
  if (o.onConnectedChange) pool.onConnectedChange(o.onConnectedChange);
  return {
    closingLocally() {
      localClose.value += pool.stats.active;
    },
  };
}
