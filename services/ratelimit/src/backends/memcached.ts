import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from 'memjs';
import { withSpan, type Logger } from '@portcullis/kit';
import { BackendError, RequestError } from '../errors.js';
import type { NodeSource } from './memcached-nodes.js';
import type { TlsTunnels } from './memcached-tls.js';
import type { Stats } from '../stats/stats.js';
import type { CounterIncrement, CounterOp, CounterStore } from './types.js';

export interface MemcachedStoreOptions {
  nodes: NodeSource;
  /** Clients (each one connection per node) used round-robin: `OBJCACHE_MAX_IDLE_CONNS`. */
  connectionsPerNode: number;
  /** `OBJCACHE_TLS=true`: the nodes are reached through these; plain TCP when undefined. */
  tls: TlsTunnels | undefined;
  /** Upstream's `ratelimit.memcache.*` statistics go here. */
  stats: Stats;
  log: Logger;
}

/** memcached's limit on key length, in bytes. */
const MAX_KEY_BYTES = 250;
// memcached keys are sent unquoted: whitespace and control characters would split or corrupt them
const FORBIDDEN_IN_KEY = /[\s\p{Cc}]/u;
const READY_RETRY_MS = 500;

/**
 * Counters in memcached, as upstream: the current values of all keys are read at once and the decision is
 * made from them plus the hits; the increments then run in the background and never delay the answer, so
 * exactly concurrent requests may briefly exceed a limit. A missing key is created by the increment itself
 * (binary-protocol `incr` with an initial value and an expiry), so no add/increment race exists.
 * The values returned are therefore "read value + hits", not values read after the increment.
 * memcached has no atomic scripts, so it refuses token buckets: configurations using `burst` are
 * rejected when they load (`supportsTokenBuckets` is false).
 */
export function createMemcachedStore(o: MemcachedStoreOptions): CounterStore {
  const log = o.log.child({ component: 'memcached' });
  const memjsLog = { log: (...args: unknown[]) => log.debug({ detail: args.join(' ') }, 'memjs') };
  let clients: Client[] = [];
  let nodeCount = 0;
  let next = 0;
  let closed = false;
  const counted = countOperations(o.stats);
  const connect = (nodes: readonly string[]): Client[] =>
    Array.from({ length: o.connectionsPerNode }, () =>
      Client.create(nodes.join(','), { logger: memjsLog, retries: 0 }),
    );
  const replace = async (nodes: readonly string[]): Promise<void> => {
    const tls = o.tls;
    const addresses = tls ? await Promise.all(nodes.map((n) => tls.open(n))) : nodes;
    const old = clients;
    clients = connect(addresses);
    nodeCount = nodes.length;
    log.info({ nodes }, 'memcached nodes');
    for (const c of old) c.quit();
    tls?.keepOnly(nodes);
  };

  const read = async (client: Client, key: string): Promise<number | undefined> => {
    const { value } = await client.get(key);
    return value === null ? undefined : Number(value.toString());
  };
  const incrementInBackground = (client: Client, op: CounterIncrement): void => {
    if (op.hits === 0) return;
    client.increment(op.key, op.hits, { initial: op.hits, expires: op.ttlSeconds }).then(
      ({ success, value }) => {
        // a key the increment created holds the hits alone: upstream makes it with `add`
        const counter = !success
          ? counted.incrementError
          : value === op.hits
            ? counted.addSuccess
            : counted.incrementSuccess;
        counter.value++;
      },
      (err: unknown) => {
        counted.incrementError.value++;
        log.warn({ err, key: op.key }, 'memcached increment failed');
      },
    );
  };

  return {
    run(ops: readonly CounterOp[]) {
      for (const op of ops) {
        checkKey(op.key);
        if (op.kind === 'take') throw new RequestError('token buckets (burst) need redis or memory');
      }
      const client = clients[next++ % clients.length];
      if (!client) return Promise.reject(new BackendError('memcached: not connected yet'));
      return withSpan('portcullis-ratelimit', 'Memcached Fetch Execution', async () => {
        let current: Array<number | undefined>;
        counted.keysRequested.value += ops.length;
        try {
          // memjs has no multi-get: the gets leave together on the node's one connection
          current = await Promise.all(ops.map((op) => read(client, op.key)));
        } catch (err: unknown) {
          counted.multigetError.value++;
          throw new BackendError(`memcached: ${(err as Error).message}`, { cause: err });
        }
        counted.multigetSuccess.value++;
        counted.keysFound.value += current.filter((v) => v !== undefined).length;
        for (const op of ops) if (op.kind === 'increment') incrementInBackground(client, op);
        return ops.map((op, i) => (current[i] ?? 0) + (op.kind === 'increment' ? op.hits : 0));
      });
    },
    supportsTokenBuckets: false,
    async ready() {
      const nodes = await o.nodes.current();
      await replace(nodes);
      o.nodes.watch(nodes, (changed) => {
        replace(changed).catch((err: unknown) =>
          log.warn({ err, nodes: changed }, 'memcached nodes not replaced'),
        );
      });
      for (;;) {
        if (closed) throw new BackendError('memcached: closed before it was ready');
        const failed = await firstFailure(clients[0], nodeCount);
        if (failed === undefined) return;
        log.warn({ err: failed }, 'memcached not answering yet');
        await sleep(READY_RETRY_MS);
      }
    },
    close() {
      closed = true;
      o.nodes.close();
      for (const c of clients) c.quit();
      o.tls?.close();
      return Promise.resolve();
    },
  };
}

/**
 * Upstream's `ratelimit.memcache.*` counters that move here: `multiget` (a request's reads, one per
 * request) by `code` success|error, `keys_requested`, `keys_found`, `increment` success|error and `add`
 * success. The increment creates a missing key itself, so upstream's increment `miss` and add
 * `not_stored`/`error` never happen and are not kept.
 */
function countOperations(stats: Stats) {
  const tagged = (name: string, code: string) => stats.taggedCounter(`ratelimit.memcache.${name}`, { code });
  return {
    multigetSuccess: tagged('multiget', 'success'),
    multigetError: tagged('multiget', 'error'),
    incrementSuccess: tagged('increment', 'success'),
    incrementError: tagged('increment', 'error'),
    addSuccess: tagged('add', 'success'),
    keysRequested: stats.namedCounter('ratelimit.memcache.keys_requested'),
    keysFound: stats.namedCounter('ratelimit.memcache.keys_found'),
  };
}

/** Throws a `RequestError` for a key memcached cannot store. */
export function checkKey(key: string): void {
  const bytes = Buffer.byteLength(key);
  if (bytes > MAX_KEY_BYTES) {
    throw new RequestError(
      `cache key is ${bytes} bytes long; the object cache (memcached) allows at most ${MAX_KEY_BYTES}`,
    );
  }
  if (FORBIDDEN_IN_KEY.test(key)) {
    throw new RequestError(
      'descriptor keys and values must not contain whitespace or control characters with the object cache (memcached)',
    );
  }
}

/** Asks every node for its stats; the first error, or undefined when all answered. */
function firstFailure(client: Client | undefined, nodeCount: number): Promise<Error | undefined> {
  if (!client) return Promise.resolve(new Error('no memcached node'));
  return new Promise((resolve) => {
    let answered = 0;
    client.stats((err) => {
      if (err) resolve(err);
      else if (++answered === nodeCount) resolve(undefined);
    });
  });
}
