import { Cluster } from 'ioredis';
import { batchPerTurn, withSpan, type Logger } from '@portcullis/kit';
import type { KvstoreConnection } from './backend-settings.js';
import { BackendError } from '../errors.js';
import { mapWithParallelism } from './cluster-parallelism.js';
import { createRedisPool, NO_QUEUE_POLICY, type RedisClient, type RedisPool } from '@portcullis/redis';
import { BUCKET_TAKE, COUNTERS, queueBucketTake, sendBucketTake } from './redis-scripts.js';
import type { Stats } from '../stats/stats.js';
import type { BucketTake, CounterOp, CounterStore } from './types.js';

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
 * bucket script per take (one key each). For single and sentinel the ops of every `run` of one event-loop
 * turn go in one pipeline when the turn ends (one round trip for all the requests decided in it, and no
 * wait), their increments and reads in one counters script call. For a cluster they are commands grouped
 * per node (auto-pipelining, per tick), so keys on different slots never meet in one multi-key command;
 * `clusterPipelineParallelism` keys of a request are in flight at once (0 = all), each key's commands
 * (`INCRBY` + `EXPIRE`) together, as upstream's per-key cluster pipelines.
 * `KVSTORE_POOL_SIZE` clients are used round-robin.
 */
export function createRedisStore(o: RedisStoreOptions): CounterStore {
  const c = o.connection;
  const pool = createRedisPool(c, { policy: NO_QUEUE_POLICY, log: o.log });
  for (const client of pool.clients) {
    BUCKET_TAKE.define(client);
    COUNTERS.define(client);
  }
  const stats = exposePoolStats(pool, o);

  const onCluster = pool.clients[0] instanceof Cluster;
  const send = (ops: readonly CounterOp[]): Promise<number[]> => {
    if (onCluster) return sendToCluster(pool.next() as Cluster, ops, c.clusterPipelineParallelism);
    return new Promise((resolve, reject) => queueInTurn({ ops, resolve, reject }));
  };
  // the ops of every request decided in this event-loop turn, sent in one pipeline when it ends
  const queueInTurn = batchPerTurn<Waiting>((batch) => {
    try {
      sendPipeline(pool.next() as Exclude<RedisClient, Cluster>, batch);
    } catch (err: unknown) {
      for (const w of batch) w.reject(toBackendError(err));
    }
  });

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

interface Waiting {
  ops: readonly CounterOp[];
  resolve: (values: number[]) => void;
  reject: (err: unknown) => void;
}

/** Ops per counters call: one call holds Redis well under a millisecond. */
const COUNTERS_PER_CALL = 512;

/**
 * The ops of `batch` in one pipeline: the increments and reads in counters calls (`COUNTERS_PER_CALL` ops
 * each), then a bucket script per take. Each request gets one number per op: the count after an increment,
 * the value read (absent = 0) or the script's; or a `BackendError` when one of its own commands failed.
 */
function sendPipeline(client: Exclude<RedisClient, Cluster>, batch: readonly Waiting[]): void {
  const pipeline = client.pipeline();
  const keys: string[] = [];
  const args: (number | string)[] = [];
  const takes: BucketTake[] = [];
  // per op, in batch order: its position among the counters' keys, or −1 − its position among the takes
  const refs: number[] = [];
  for (const w of batch) {
    for (const op of w.ops) {
      switch (op.kind) {
        case 'increment':
          refs.push(keys.push(op.key) - 1);
          args.push(op.hits, op.ttlSeconds);
          break;
        case 'read':
          refs.push(keys.push(op.key) - 1);
          args.push('', '');
          break;
        case 'take':
          refs.push(-takes.push(op));
          break;
        default: {
          const unknown: never = op;
          throw new Error(`unknown op ${String(unknown)}`);
        }
      }
    }
  }
  for (let at = 0; at < keys.length; at += COUNTERS_PER_CALL) {
    const end = at + COUNTERS_PER_CALL;
    COUNTERS.queue(pipeline, keys.slice(at, end), args.slice(2 * at, 2 * end));
  }
  for (const op of takes) queueBucketTake(pipeline, op);
  const calls = Math.ceil(keys.length / COUNTERS_PER_CALL);

  pipeline.exec().then(
    (replies) => {
      const answer = (ref: number): [Error | null, unknown] => {
        if (ref < 0) return replies?.[calls - 1 - ref] ?? [null, 0];
        const [err, values] = replies?.[Math.floor(ref / COUNTERS_PER_CALL)] ?? [null, []];
        if (err) return [err, null];
        const value = (values as unknown[])[ref % COUNTERS_PER_CALL];
        return value instanceof Error ? [value, null] : [null, value];
      };
      let at = 0;
      for (const w of batch) {
        const values: number[] = [];
        let failed: Error | null = null;
        for (let i = 0; i < w.ops.length; i++) {
          const [err, value] = answer(refs[at++] as number);
          failed ??= err;
          values.push(Number(value ?? 0));
        }
        if (failed) w.reject(toBackendError(failed));
        else w.resolve(values);
      }
    },
    (err: unknown) => {
      for (const w of batch) w.reject(toBackendError(err));
    },
  );
}

function toBackendError(err: unknown): BackendError {
  return new BackendError(`redis: ${(err as Error).message}`, { cause: err });
}

async function sendToCluster(
  client: Cluster,
  ops: readonly CounterOp[],
  parallelism: number,
): Promise<number[]> {
  let values: unknown[];
  try {
    values = await mapWithParallelism(ops, parallelism, (op) => sendOp(client, op));
  } catch (err: unknown) {
    throw toBackendError(err);
  }
  return values.map(Number);
}

/** Auto-pipelining sends the commands issued in one tick in one write per node, each key's commands in order. */
function sendOp(client: Cluster, op: CounterOp): Promise<unknown> {
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
