import { readFileSync } from 'node:fs';
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import type { KvstoreConnection } from './backend-settings.js';

export type RedisClient = Redis | Cluster;

const MAX_RECONNECT_DELAY_MS = 2000;

/**
 * One connection (or, for a cluster, one connection per node) to the deployment `c` describes. Commands
 * fail at once while disconnected instead of queueing behind a reconnect, so decisions fail fast.
 */
export function createRedisClient(c: KvstoreConnection): RedisClient {
  const common = toCommonOptions(c);
  switch (c.type) {
    case 'single': {
      if (c.socketType === 'unix') return new Redis({ ...common, path: c.url });
      return new Redis({ ...common, ...splitHostPort(c.url) });
    }
    case 'sentinel': {
      const [name = '', ...sentinels] = c.url.split(',').map((s) => s.trim());
      const [sentinelUsername, sentinelPassword] = splitAuth(c.sentinelAuth);
      return new Redis({
        ...common,
        name,
        sentinels: sentinels.map(splitHostPort),
        ...(sentinelUsername ? { sentinelUsername } : {}),
        ...(sentinelPassword ? { sentinelPassword } : {}),
        sentinelRetryStrategy: retryDelayMs,
        // Follow `+switch-master` from the sentinels at once, rather than after the old master fails.
        failoverDetector: true,
        // A demoted master answers writes with READONLY: reconnect, asking the sentinels again.
        reconnectOnError: (err) => err.message.startsWith('READONLY'),
      });
    }
    case 'cluster':
      return new Cluster(
        c.url.split(',').map((s) => splitHostPort(s.trim())),
        {
          redisOptions: common,
          enableOfflineQueue: false,
          // Groups the commands of one flush by node: a request's keys may live on different slots.
          enableAutoPipelining: true,
          clusterRetryStrategy: retryDelayMs,
          slotsRefreshTimeout: c.timeoutMs,
        },
      );
    default: {
      const unknown: never = c.type;
      throw new Error(`unknown KVSTORE_TYPE ${String(unknown)}`);
    }
  }
}

function retryDelayMs(times: number): number {
  return Math.min(times * 100, MAX_RECONNECT_DELAY_MS);
}

function toCommonOptions(c: KvstoreConnection): RedisOptions {
  const [username, password] = splitAuth(c.auth);
  return {
    ...(username ? { username } : {}),
    ...(password ? { password } : {}),
    commandTimeout: c.timeoutMs,
    connectTimeout: c.timeoutMs,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    retryStrategy: retryDelayMs,
    ...(c.tls.enabled ? { tls: toTls(c.tls) } : {}),
  };
}

function toTls(files: KvstoreConnection['tls']): NonNullable<RedisOptions['tls']> {
  const read = (path: string): Buffer | undefined => (path === '' ? undefined : readFileSync(path));
  const cert = read(files.clientCert);
  const key = read(files.clientKey);
  const ca = read(files.caCert);
  return { ...(cert ? { cert } : {}), ...(key ? { key } : {}), ...(ca ? { ca } : {}) };
}

/** `password` or `user:password` into [user, password]. */
function splitAuth(auth: string): [string, string] {
  const i = auth.indexOf(':');
  return i < 0 ? ['', auth] : [auth.slice(0, i), auth.slice(i + 1)];
}

/** `host:port`, `[v6]:port` or `host` (port 6379). */
function splitHostPort(address: string): { host: string; port: number } {
  const m = /^\[(.+)\]:(\d+)$/.exec(address) ?? /^([^:]+):(\d+)$/.exec(address);
  if (m?.[1] && m[2]) return { host: m[1], port: Number(m[2]) };
  return { host: address.replace(/^\[(.*)\]$/, '$1'), port: 6379 };
}
