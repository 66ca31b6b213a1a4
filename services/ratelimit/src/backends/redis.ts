import { readFileSync } from 'node:fs';
import { Redis, type RedisOptions } from 'ioredis';
import { withSpan, type Logger } from '@portcullis/kit';
import { BackendError } from '../errors.js';
import type { CounterIncrement, CounterStore } from './types.js';

export interface RedisTlsFiles {
  /** PEM files; empty strings mean "not given". */
  clientCert: string;
  clientKey: string;
  caCert: string;
}

export interface RedisStoreOptions {
  /** `host:port`, or a socket path when `socketType` is `unix`. */
  url: string;
  socketType: 'tcp' | 'unix';
  /** `password` or `user:password`; empty for none. */
  auth: string;
  tls: RedisTlsFiles | undefined;
  poolSize: number;
  timeoutMs: number;
  log: Logger;
  /** Called with true when a first connection is up and false when none is left. */
  onConnectedChange?: (connected: boolean) => void;
}

const MAX_RECONNECT_DELAY_MS = 2000;

/**
 * Counters in a single Redis (or anything speaking its protocol): `INCRBY` + `EXPIRE` per key, all of a
 * request's commands written together, so a decision costs one round trip as upstream's explicit pipeline
 * does; ioredis auto-pipelining also lets concurrent requests share one write.
 */
export function createRedisStore(o: RedisStoreOptions): CounterStore {
  const log = o.log.child({ component: 'redis' });
  const options = toRedisOptions(o);
  const clients = Array.from({ length: o.poolSize }, () => new Redis(options));
  let connectedCount = 0;
  let next = 0;
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
      if (err.message !== lastError) log.warn({ err, url: o.url }, 'redis connection error');
      lastError = err.message;
    });
  }

  const sendIncrements = async (ops: readonly CounterIncrement[]): Promise<number[]> => {
    const client = clients[next++ % clients.length];
    if (!client) throw new BackendError('redis: no client');
    // With auto-pipelining, commands issued in the same event-loop turn leave in one write: a request's
    // INCRBY/EXPIRE pairs stay together and in order, and concurrent requests share the system call.
    const replies: Array<Promise<unknown>> = [];
    for (const op of ops) replies.push(client.incrby(op.key, op.hits), client.expire(op.key, op.ttlSeconds));
    let values: unknown[];
    try {
      values = await Promise.all(replies);
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
      await Promise.all(clients.map((c) => c.quit().catch(() => c.disconnect())));
    },
  };
}

function toRedisOptions(o: RedisStoreOptions): RedisOptions {
  const [user, password] = o.auth.includes(':') ? splitOnce(o.auth) : ['', o.auth];
  const common: RedisOptions = {
    ...(user ? { username: user } : {}),
    ...(password ? { password } : {}),
    commandTimeout: o.timeoutMs,
    connectTimeout: o.timeoutMs,
    // Fail a decision at once while disconnected instead of queueing it behind a reconnect.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    enableAutoPipelining: true,
    retryStrategy: (times) => Math.min(times * 100, MAX_RECONNECT_DELAY_MS),
    ...(o.tls ? { tls: toTls(o.tls) } : {}),
  };
  if (o.socketType === 'unix') return { ...common, path: o.url };
  const { host, port } = splitHostPort(o.url);
  return { ...common, host, port };
}

function toTls(files: RedisTlsFiles): NonNullable<RedisOptions['tls']> {
  const read = (path: string): Buffer | undefined => (path === '' ? undefined : readFileSync(path));
  const cert = read(files.clientCert);
  const key = read(files.clientKey);
  const ca = read(files.caCert);
  return { ...(cert ? { cert } : {}), ...(key ? { key } : {}), ...(ca ? { ca } : {}) };
}

function splitOnce(text: string): [string, string] {
  const i = text.indexOf(':');
  return [text.slice(0, i), text.slice(i + 1)];
}

/** `host:port`, `[v6]:port` or `host` (port 6379). */
export function splitHostPort(address: string): { host: string; port: number } {
  const m = /^\[(.+)\]:(\d+)$/.exec(address) ?? /^([^:]+):(\d+)$/.exec(address);
  if (m?.[1] && m[2]) return { host: m[1], port: Number(m[2]) };
  return { host: address.replace(/^\[(.*)\]$/, '$1'), port: 6379 };
}
