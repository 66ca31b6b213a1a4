import { Cluster } from 'ioredis';
import type { Logger } from '@portcullis/kit';
import { createRedisClient } from './client.js';
import type { ClientPolicy } from './client-policy.js';
import type { RedisClient, RedisConnection } from './types.js';

/** Counts since the pool was made; what `registerRedisMetrics` exposes. */
export interface RedisPoolStats {
  /** Clients connected now. */
  readonly active: number;
  /** Connections made (first ones and reconnections). */
  readonly connects: number;
  /** Connection errors reported by the clients (every retry counts). */
  readonly errors: number;
}

export interface RedisPool {
  readonly clients: readonly RedisClient[];
  readonly stats: RedisPoolStats;
  /** Commands sent on the pool's connections and not answered yet. */
  pendingCommands(): number;
  /** The clients round-robin. */
  next(): RedisClient;
  /** A client of its own to the same deployment (for blocking reads); the caller closes it. */
  dedicated(): RedisClient;
  /** Resolves once every client is connected. */
  ready(): Promise<void>;
  /** Called with true when a first client is connected (again), false when none is left. */
  onConnectedChange(listener: (connected: boolean) => void): () => void;
  close(): Promise<void>;
}

export interface RedisPoolOptions {
  policy: Readonly<ClientPolicy>;
  /** Receives one warning per outage and client (its first error), not one per retry. */
  log?: Logger;
}

/** `c.poolSize` clients to one deployment, their connection errors logged and counted. */
export function createRedisPool(c: RedisConnection, o: RedisPoolOptions): RedisPool {
  const log = o.log?.child({ component: 'redis', type: c.type });
  const stats = { active: 0, connects: 0, errors: 0 };
  const listeners = new Set<(connected: boolean) => void>();
  const notify = (now: boolean): void => {
    for (const l of [...listeners]) l(now);
  };

  const watch = (client: RedisClient): RedisClient => {
    let connected = false;
    let warned = false;
    client.on('ready', () => {
      warned = false;
      stats.connects++;
      if (connected) return;
      connected = true;
      stats.active++;
      if (stats.active === 1) notify(true);
    });
    client.on('close', () => {
      if (!connected) return;
      connected = false;
      stats.active--;
      if (stats.active === 0) notify(false);
    });
    client.on('error', (err: Error) => {
      stats.errors++;
      // the first error of an outage only: retries alternate messages (a sentinel, then the master it names)
      if (warned) return;
      warned = true;
      // the URL names no secret: a password travels in the auth setting or is stripped here
      log?.warn({ err, url: redactUrl(c.url) }, 'redis connection error');
    });
    return client;
  };

  const clients = Array.from({ length: c.poolSize }, () => watch(createRedisClient(c, o.policy)));
  let turn = 0;
  return {
    clients,
    stats,
    pendingCommands: () => clients.reduce((n, client) => n + countPending(client), 0),
    next: () => clients[turn++ % clients.length] as RedisClient,
    dedicated() {
      const client = createRedisClient(c, o.policy);
      // reported by the pool's own clients; a failed command rejects
      client.on('error', () => undefined);
      return client;
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
    onConnectedChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      await Promise.all(clients.map((client) => client.quit().catch(() => client.disconnect())));
    },
  };
}

function countPending(client: RedisClient): number {
  if (client instanceof Cluster) return client.nodes().reduce((n, node) => n + node.commandQueue.length, 0);
  return client.commandQueue.length;
}

function redactUrl(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}
