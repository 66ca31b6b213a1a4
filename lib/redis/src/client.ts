import { readFileSync } from 'node:fs';
import { splitHostPort, type HostPort } from '@portcullis/kit';
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import type { ClientPolicy } from './client-policy.js';
import type { RedisClient, RedisConnection } from './types.js';

/** One client (for a cluster: one connection per node) to the deployment `c` describes. */
export function createRedisClient(c: RedisConnection, policy: Readonly<ClientPolicy>): RedisClient {
  const retryDelayMs = (attempt: number): number =>
    Math.min(attempt * policy.reconnectDelay.stepMs, policy.reconnectDelay.maxMs);
  const common = toCommonOptions(c, policy, retryDelayMs);
  switch (c.type) {
    case 'single':
      if (c.socketType === 'unix') return new Redis({ ...common, path: c.url });
      if (/^rediss?:\/\//.test(c.url)) {
        return new Redis({ ...common, ...fromUrl(c.url), ...(common.tls ? { tls: common.tls } : {}) });
      }
      return new Redis({ ...common, ...toRedisNode(c.url) });
    case 'sentinel': {
      const [name = '', ...sentinels] = c.url.split(',').map((s) => s.trim());
      const [sentinelUsername, sentinelPassword] = splitAuth(c.sentinelAuth);
      return new SentinelClient({
        ...common,
        name,
        sentinels: sentinels.map(toRedisNode),
        ...(sentinelUsername ? { sentinelUsername } : {}),
        ...(sentinelPassword ? { sentinelPassword } : {}),
        ...(common.tls ? { enableTLSForSentinelMode: true, sentinelTLS: common.tls } : {}),
        sentinelRetryStrategy: retryDelayMs,
        // Follow `+switch-master` from the sentinels at once, rather than after the old master fails.
        failoverDetector: true,
        // A demoted master answers writes with READONLY: reconnect, asking the sentinels again.
        reconnectOnError: (err) => err.message.startsWith('READONLY'),
      });
    }
    case 'cluster':
      return new Cluster(
        c.url.split(',').map((s) => toRedisNode(s.trim())),
        {
          redisOptions: common,
          enableOfflineQueue: policy.offlineQueue,
          enableAutoPipelining: policy.autoPipelining,
          clusterRetryStrategy: retryDelayMs,
          slotsRefreshTimeout: c.timeoutMs,
        },
      );
    default: {
      const unknown: never = c.type;
      throw new Error(`unknown Redis type ${String(unknown)}`);
    }
  }
}

/**
 * ioredis 5's failover detector outlives the connection it watched: a `+switch-master` that arrives while the
 * client asks the sentinels where to reconnect (its master died) aborts that attempt, and the client ends
 * instead of retrying, failing every command from then on. An end straight from `connecting` that
 * `disconnect()` did not ask for is such an abort: this client connects again.
 */
class SentinelClient extends Redis {
  #closing = false;

  constructor(options: RedisOptions) {
    super(options);
    let connecting = false;
    this.on('connecting', () => (connecting = true));
    this.on('close', () => (connecting = false));
    this.on('end', () => {
      if (connecting && !this.#closing) this.connect().catch(() => undefined);
    });
  }

  override disconnect(reconnect = false): void {
    if (!reconnect) this.#closing = true;
    super.disconnect(reconnect);
  }
}

function toCommonOptions(
  c: RedisConnection,
  policy: Readonly<ClientPolicy>,
  retryDelayMs: (attempt: number) => number,
): RedisOptions {
  const [username, password] = splitAuth(c.auth);
  return {
    ...(username ? { username } : {}),
    ...(password ? { password } : {}),
    ...(policy.commandTimeout ? { commandTimeout: c.timeoutMs } : {}),
    connectTimeout: c.timeoutMs,
    // many requests' lookups in one tick leave in one write: on the gateway's jwt route this took Redis
    // from 19% of a core to 4% and the route from 0.43 to 0.54 of bare fastify (bench/gateway)
    enableAutoPipelining: policy.autoPipelining,
    enableOfflineQueue: policy.offlineQueue,
    maxRetriesPerRequest: policy.maxRetriesPerRequest,
    retryStrategy: retryDelayMs,
    ...(c.tls.enabled ? { tls: toTls(c.tls) } : {}),
  };
}

/** `redis://[user:password@]host[:port][/db]`; `rediss://` adds TLS. Its parts win over the settings'. */
function fromUrl(url: string): RedisOptions {
  const u = new URL(url);
  const db = Number(u.pathname.slice(1) || '0');
  return {
    host: u.hostname.replace(/^\[(.*)\]$/, '$1'),
    port: Number(u.port || '6379'),
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(Number.isInteger(db) && db > 0 ? { db } : {}),
    ...(u.protocol === 'rediss:' ? { tls: {} } : {}),
  };
}

function toTls(files: RedisConnection['tls']): NonNullable<RedisOptions['tls']> {
  const read = (path: string): Buffer | undefined => (path === '' ? undefined : readFileSync(path));
  const cert = read(files.clientCert);
  const key = read(files.clientKey);
  const ca = read(files.caCert);
  return { ...(cert ? { cert } : {}), ...(key ? { key } : {}), ...(ca ? { ca } : {}) };
}

/** `host:port`, `[v6]:port` or `host`: Redis's port 6379 when none is given. */
function toRedisNode(address: string): HostPort {
  return splitHostPort(address, 6379);
}

/** `password` or `user:password` into [user, password]. */
function splitAuth(auth: string): [string, string] {
  const i = auth.indexOf(':');
  return i < 0 ? ['', auth] : [auth.slice(0, i), auth.slice(i + 1)];
}
