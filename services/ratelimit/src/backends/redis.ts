import { Cluster } from 'ioredis';
import { withSpan, type Logger } from '@portcullis/kit';
import type { KvstoreConnection } from '../backend-settings.js';
import { BackendError } from '../errors.js';
import { createRedisClient, type RedisClient } from './redis-client.js';
import type { CounterIncrement, CounterStore } from './types.js';

export interface RedisStoreOptions {
  connection: KvstoreConnection;
  log: Logger;
  /** Called with true when a first connection is up and false when none is left. */
  onConnectedChange?: (connected: boolean) => void;
}

/**
 * Counters in Redis (single, sentinel or cluster): `INCRBY` + `EXPIRE` per key. For single and sentinel
 * the commands of one `increment` call go in one explicit pipeline, one round trip as upstream; for a
 * cluster they are grouped per node, so keys on different slots never meet in one multi-key command.
 * `KVSTORE_POOL_SIZE` clients are used round-robin.
 */
export function createRedisStore(o: RedisStoreOptions): CounterStore {
  const c = o.connection;
  const log = o.log.child({ component: 'redis', type: c.type });
  const clients = Array.from({ length: c.poolSize }, () => createRedisClient(c));
  trackConnections(clients, { ...o, log });
  let next = 0;

  const sendIncrements = async (ops: readonly CounterIncrement[]): Promise<number[]> => {
    const client = clients[next++ % clients.length] as RedisClient;
    let values: unknown[];
    try {
      values = client instanceof Cluster ? await sendPerNode(client, ops) : await sendPipeline(client, ops);
    } catch (err: unknown) {
      throw new BackendError(`redis: ${(err as Error).message}`, { cause: err });
    }
    return ops.map((_, i) => Number(values[i * 2]));
  };

  return {
    increment(ops: readonly CounterIncrement[]) {
      return withSpan('portcullis-ratelimit', 'Redis Pipeline Execution', () => sendIncrements(ops));
    },
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
      await Promise.all(clients.map((client) => client.quit().catch(() => client.disconnect())));
    },
  };
}

async function sendPipeline(client: Exclude<RedisClient, Cluster>, ops: readonly CounterIncrement[]) {
  const pipeline = client.pipeline();
  for (const op of ops) pipeline.incrby(op.key, op.hits).expire(op.key, op.ttlSeconds);
  const replies = (await pipeline.exec()) ?? [];
  return replies.map(([err, value]) => {
    if (err) throw err;
    return value;
  });
}

/** Auto-pipelining sends the commands issued here in one write per node, each key's pair in order. */
function sendPerNode(client: Cluster, ops: readonly CounterIncrement[]): Promise<unknown[]> {
  const replies: Array<Promise<unknown>> = [];
  for (const op of ops) replies.push(client.incrby(op.key, op.hits), client.expire(op.key, op.ttlSeconds));
  return Promise.all(replies);
}

function trackConnections(clients: readonly RedisClient[], o: RedisStoreOptions): void {
  let connectedCount = 0;
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
      setConnected(true);
    });
    client.on('close', () => setConnected(false));
    client.on('error', (err: Error) => {
      if (err.message !== lastError) o.log.warn({ err, url: o.connection.url }, 'redis connection error');
      lastError = err.message;
    });
  }
}
