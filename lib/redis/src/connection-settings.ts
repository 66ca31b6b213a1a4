import type { EnvReader } from '@portcullis/kit';
import { REDIS_TYPES, type RedisConnection } from './types.js';

/** A whole env name, and the older one read when it is unset. */
export interface EnvName {
  name: string;
  alias?: string;
}

/** The names of one service's Redis settings, each written out whole (the tables below). */
export interface RedisEnvNames {
  type: EnvName;
  url: EnvName;
  socketType: EnvName;
  /** Only where a service uses more than one client (the ratelimit); 1 otherwise. */
  poolSize?: EnvName;
  auth: EnvName;
  sentinelAuth: EnvName;
  tls: EnvName;
  tlsClientCert: EnvName;
  tlsClientKey: EnvName;
  tlsCaCert: EnvName;
  timeout: EnvName;
}

// Every name `readRedisConnection` reads, per service: one grep for a name finds its table here.

/** The ratelimit's main Redis: its spec's `KVSTORE_*`, upstream Envoy ratelimit's `REDIS_*` as aliases. */
export const RATELIMIT_REDIS_ENV: Readonly<RedisEnvNames> = {
  type: { name: 'KVSTORE_TYPE', alias: 'REDIS_TYPE' },
  url: { name: 'KVSTORE_URL', alias: 'REDIS_URL' },
  socketType: { name: 'KVSTORE_SOCKET_TYPE', alias: 'REDIS_SOCKET_TYPE' },
  poolSize: { name: 'KVSTORE_POOL_SIZE', alias: 'REDIS_POOL_SIZE' },
  auth: { name: 'KVSTORE_AUTH', alias: 'REDIS_AUTH' },
  sentinelAuth: { name: 'KVSTORE_SENTINEL_AUTH', alias: 'REDIS_SENTINEL_AUTH' },
  tls: { name: 'KVSTORE_TLS', alias: 'REDIS_TLS' },
  tlsClientCert: { name: 'KVSTORE_TLS_CLIENT_CERT', alias: 'REDIS_TLS_CLIENT_CERT' },
  tlsClientKey: { name: 'KVSTORE_TLS_CLIENT_KEY', alias: 'REDIS_TLS_CLIENT_KEY' },
  tlsCaCert: { name: 'KVSTORE_TLS_CACERT', alias: 'REDIS_TLS_CACERT' },
  timeout: { name: 'KVSTORE_TIMEOUT', alias: 'REDIS_TIMEOUT' },
};

/** The ratelimit's per-second Redis (`KVSTORE_PERSECOND=true`). */
export const RATELIMIT_PERSECOND_REDIS_ENV: Readonly<RedisEnvNames> = {
  type: { name: 'KVSTORE_PERSECOND_TYPE', alias: 'REDIS_PERSECOND_TYPE' },
  url: { name: 'KVSTORE_PERSECOND_URL', alias: 'REDIS_PERSECOND_URL' },
  socketType: { name: 'KVSTORE_PERSECOND_SOCKET_TYPE', alias: 'REDIS_PERSECOND_SOCKET_TYPE' },
  poolSize: { name: 'KVSTORE_PERSECOND_POOL_SIZE', alias: 'REDIS_PERSECOND_POOL_SIZE' },
  auth: { name: 'KVSTORE_PERSECOND_AUTH', alias: 'REDIS_PERSECOND_AUTH' },
  sentinelAuth: { name: 'KVSTORE_PERSECOND_SENTINEL_AUTH', alias: 'REDIS_PERSECOND_SENTINEL_AUTH' },
  tls: { name: 'KVSTORE_PERSECOND_TLS', alias: 'REDIS_PERSECOND_TLS' },
  tlsClientCert: { name: 'KVSTORE_PERSECOND_TLS_CLIENT_CERT', alias: 'REDIS_PERSECOND_TLS_CLIENT_CERT' },
  tlsClientKey: { name: 'KVSTORE_PERSECOND_TLS_CLIENT_KEY', alias: 'REDIS_PERSECOND_TLS_CLIENT_KEY' },
  tlsCaCert: { name: 'KVSTORE_PERSECOND_TLS_CACERT', alias: 'REDIS_PERSECOND_TLS_CACERT' },
  timeout: { name: 'KVSTORE_PERSECOND_TIMEOUT', alias: 'REDIS_PERSECOND_TIMEOUT' },
};

/** The gateway's Redis (accounts, sessions); `REDIS_URL`, its first name, stays an alias. */
export const GATEWAY_REDIS_ENV: Readonly<RedisEnvNames> = {
  type: { name: 'GATEWAY_REDIS_TYPE' },
  url: { name: 'GATEWAY_REDIS_URL', alias: 'REDIS_URL' },
  socketType: { name: 'GATEWAY_REDIS_SOCKET_TYPE' },
  auth: { name: 'GATEWAY_REDIS_AUTH' },
  sentinelAuth: { name: 'GATEWAY_REDIS_SENTINEL_AUTH' },
  tls: { name: 'GATEWAY_REDIS_TLS' },
  tlsClientCert: { name: 'GATEWAY_REDIS_TLS_CLIENT_CERT' },
  tlsClientKey: { name: 'GATEWAY_REDIS_TLS_CLIENT_KEY' },
  tlsCaCert: { name: 'GATEWAY_REDIS_TLS_CACERT' },
  timeout: { name: 'GATEWAY_REDIS_TIMEOUT' },
};

/** The inbox's Redis (captures, forwarding, and the gateway's accounts); `REDIS_URL` stays an alias. */
export const INBOX_REDIS_ENV: Readonly<RedisEnvNames> = {
  type: { name: 'INBOX_REDIS_TYPE' },
  url: { name: 'INBOX_REDIS_URL', alias: 'REDIS_URL' },
  socketType: { name: 'INBOX_REDIS_SOCKET_TYPE' },
  auth: { name: 'INBOX_REDIS_AUTH' },
  sentinelAuth: { name: 'INBOX_REDIS_SENTINEL_AUTH' },
  tls: { name: 'INBOX_REDIS_TLS' },
  tlsClientCert: { name: 'INBOX_REDIS_TLS_CLIENT_CERT' },
  tlsClientKey: { name: 'INBOX_REDIS_TLS_CLIENT_KEY' },
  tlsCaCert: { name: 'INBOX_REDIS_TLS_CACERT' },
  timeout: { name: 'INBOX_REDIS_TIMEOUT' },
};

export interface RedisConnectionDefaults {
  /** Empty: no Redis (the caller's memory mode). */
  url: string;
  /** A second deployment uses the first one's certificate files unless it names its own, as upstream. */
  tls?: RedisConnection['tls'];
}

/** One deployment's settings under `names`; bad values are recorded on `env`, naming the variable. */
export function readRedisConnection(
  env: EnvReader,
  names: Readonly<RedisEnvNames>,
  defaults: RedisConnectionDefaults,
): RedisConnection {
  const at = (n: EnvName): { alias?: string } => (n.alias ? { alias: n.alias } : {});
  const type = env.oneOf(names.type.name, REDIS_TYPES, { default: 'single', ...at(names.type) });
  const url = env.str(names.url.name, { default: defaults.url, ...at(names.url) });
  checkUrl(env, { name: names.url.name, type, url });
  const file = (n: EnvName, fallback: string | undefined): string =>
    env.str(n.name, { default: fallback ?? '', ...at(n) });
  return {
    type,
    url,
    socketType: env.oneOf(names.socketType.name, ['tcp', 'unix'], {
      default: url.startsWith('/') ? 'unix' : 'tcp',
      ...at(names.socketType),
    }),
    poolSize: names.poolSize
      ? env.int(names.poolSize.name, { default: 1, min: 1, max: 1024, ...at(names.poolSize) })
      : 1,
    auth: env.str(names.auth.name, at(names.auth)),
    sentinelAuth: env.str(names.sentinelAuth.name, at(names.sentinelAuth)),
    tls: {
      enabled: env.bool(names.tls.name, { default: false, ...at(names.tls) }),
      clientCert: file(names.tlsClientCert, defaults.tls?.clientCert),
      clientKey: file(names.tlsClientKey, defaults.tls?.clientKey),
      caCert: file(names.tlsCaCert, defaults.tls?.caCert),
    },
    timeoutMs: env.durationMs(names.timeout.name, {
      default: '10s',
      min: '10ms',
      max: '5m',
      ...at(names.timeout),
    }),
  };
}

/** A single server at `url` (`host:port` or `redis://…`) with the defaults: tools and tests. */
export function toSingleConnection(url: string): RedisConnection {
  return {
    type: 'single',
    url,
    socketType: url.startsWith('/') ? 'unix' : 'tcp',
    poolSize: 1,
    auth: '',
    sentinelAuth: '',
    tls: { enabled: false, clientCert: '', clientKey: '', caCert: '' },
    timeoutMs: 10_000,
  };
}

function checkUrl(env: EnvReader, o: { name: string; type: RedisConnection['type']; url: string }): void {
  const items = o.url.split(',').map((s) => s.trim());
  if (o.type === 'sentinel' && (items.length < 2 || items.some((s) => s === ''))) {
    env.problem(`${o.name}="${o.url}": a sentinel URL is the master name, then sentinel host:port items`);
  }
  if (o.type === 'cluster' && items.some((s) => s === '')) {
    env.problem(`${o.name}="${o.url}": a cluster URL is a comma-separated list of node host:port items`);
  }
}
