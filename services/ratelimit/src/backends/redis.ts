import { Cluster } from 'ioredis';
import { withSpan, type Logger } from '@portcullis/kit';
import type { KvstoreConnection } from './backend-settings.js';
import { BackendError } from '../errors.js';
import { createRedisClient, type RedisClient } from './redis-client.js';
import { defineBucketTake, queueBucketTake, sendBucketTake } from './redis-scripts.js';
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
  const log = o.log.child({ component: 'redis', type: c.type });
  const clients = Array.from({ length: c.poolSize }, () => createRedisClient(c));
  for (const client of clients) defineBucketTake(client);
  const connections = trackConnections(clients, { ...o, log });
  let next = 0;

  const send = async (ops: readonly CounterOp[]): Promise<number[]> => {
    const client = clients[next++ % clients.length] as RedisClient;
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
    async ready() {
      await Promise.all(
        clients.map(
          (client) =>
            new Promise<void>((resolve) => {
              if (client.status === 'ready') resolve();
              else client.once('ready', () => resolve());
            }),
        ),
      );
    },
    async close() {
      connections.closingLocally();
      await Promise.all(clients.map((client) => client.quit().catch(() => client.disconnect())));
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

function trackConnections(clients: readonly RedisClient[], o: RedisStoreOptions): { closingLocally(): void } {
  const total = o.stats.namedCounter(`${o.statsPrefix}.cx_total`);
  const localClose = o.stats.namedCounter(`${o.statsPrefix}.cx_local_close`);
  let connectedCount = 0;
  o.stats.gauge(`${o.statsPrefix}.cx_active`, () => connectedCount);
  for (const client of clients) {
    let connected = false;
    const setConnected = (now: boolean): void => {
      if (now === connected) return;
      connected = now;
      connectedCount += now ? 1 : -1;
      if (connectedCount === (now ? 1 : 0)) o.onConnectedChange?.(now);
    };
    let lastError = '';
    client.on('ready', () => {
      lastError = '';
      total.value++;
      setConnected(true);
    });
    client.on('close', () => setConnected(false));
    client.on('error', (err: Error) => {
      if (err.message !== lastError) o.log.warn({ err, url: o.connection.url }, 'redis connection error');
      lastError = err.message;
    });
  }
  return {
    closingLocally() {
      localClose.value += connectedCount;
    },
  };
}
