import type { EnvReader } from '@portcullis/kit';

export const KVSTORE_TYPES = ['single', 'sentinel', 'cluster'] as const;
export type KvstoreType = (typeof KVSTORE_TYPES)[number];

/** How to reach one Redis deployment: the main one, or the per-second one. */
export interface KvstoreConnection {
  type: KvstoreType;
  /** `single`: `host:port` or a socket path; `sentinel`: `master,host:port,host:port…`; `cluster`: `host:port,…`. */
  url: string;
  socketType: 'tcp' | 'unix';
  poolSize: number;
  /** `password` or `user:password`; empty for none. */
  auth: string;
  /** For `sentinel`: what the sentinels themselves require, in the same form; empty for none. */
  sentinelAuth: string;
  tls: { enabled: boolean; clientCert: string; clientKey: string; caCert: string };
  timeoutMs: number;
  /** Implicit pipelining: how long commands of concurrent requests wait to share one flush; 0 = off. */
  pipelineWindowMs: number;
  /** Flush early once this many commands wait; 0 = no limit. */
  pipelineLimit: number;
}

export interface KvstoreSettings extends KvstoreConnection {
  healthCheckActiveConnection: boolean;
  /** `KVSTORE_PERSECOND=true`: per-second limits count in this second deployment. */
  perSecond: KvstoreConnection | undefined;
}

export interface ObjcacheSettings {
  /** `host:port` nodes; empty when `srv` names them. */
  hostPorts: string[];
  /** An SRV record listing the nodes; empty when `hostPorts` does. */
  srv: string;
  /** How often to resolve `srv` again; 0 = never. */
  srvRefreshMs: number;
  /** Connections kept to each node. */
  maxIdleConns: number;
}

/** `KVSTORE_*` (aliases `REDIS_*`), and the same for `KVSTORE_PERSECOND_*` when `KVSTORE_PERSECOND=true`. */
export function readKvstore(env: EnvReader): KvstoreSettings {
  const main = readConnection(env, { prefix: 'KVSTORE_', alias: 'REDIS_', fallbackTls: undefined });
  const perSecond = env.bool('KVSTORE_PERSECOND', { default: false, alias: 'REDIS_PERSECOND' })
    ? readConnection(env, { prefix: 'KVSTORE_PERSECOND_', alias: 'REDIS_PERSECOND_', fallbackTls: main.tls })
    : undefined;
  return {
    ...main,
    healthCheckActiveConnection: env.bool('KVSTORE_HEALTH_CHECK_ACTIVE_CONNECTION', {
      default: false,
      alias: 'REDIS_HEALTH_CHECK_ACTIVE_CONNECTION',
    }),
    perSecond,
  };
}

interface Names {
  prefix: string;
  alias: string;
  /** The per-second instance uses the main certificate files unless it names its own, as upstream shares them. */
  fallbackTls: KvstoreConnection['tls'] | undefined;
}

function readConnection(env: EnvReader, n: Names): KvstoreConnection {
  const at = (name: string): { alias: string } => ({ alias: n.alias + name });
  const v = (name: string): string => n.prefix + name;
  const type = env.oneOf(v('TYPE'), KVSTORE_TYPES, { default: 'single', ...at('TYPE') });
  const url = env.str(v('URL'), { default: 'localhost:6379', ...at('URL') });
  checkUrl(env, { name: v('URL'), type, url });
  const file = (name: string, fallback: string | undefined): string =>
    env.str(v(name), { default: fallback ?? '', ...at(name) });
  return {
    type,
    url,
    socketType: env.oneOf(v('SOCKET_TYPE'), ['tcp', 'unix'], {
      default: url.startsWith('/') ? 'unix' : 'tcp',
      ...at('SOCKET_TYPE'),
    }),
    poolSize: env.int(v('POOL_SIZE'), { default: 1, min: 1, max: 1024, ...at('POOL_SIZE') }),
    auth: env.str(v('AUTH'), at('AUTH')),
    sentinelAuth: env.str(v('SENTINEL_AUTH'), at('SENTINEL_AUTH')),
    tls: {
      enabled: env.bool(v('TLS'), { default: false, ...at('TLS') }),
      clientCert: file('TLS_CLIENT_CERT', n.fallbackTls?.clientCert),
      clientKey: file('TLS_CLIENT_KEY', n.fallbackTls?.clientKey),
      caCert: file('TLS_CACERT', n.fallbackTls?.caCert),
    },
    timeoutMs: env.durationMs(v('TIMEOUT'), { default: '10s', min: '10ms', max: '5m', ...at('TIMEOUT') }),
    pipelineWindowMs: env.durationMs(v('PIPELINE_WINDOW'), {
      default: '0',
      min: '1us',
      max: '1s',
      zeroMeans: 'off',
      ...at('PIPELINE_WINDOW'),
    }),
    pipelineLimit: env.int(v('PIPELINE_LIMIT'), {
      default: 0,
      min: 0,
      max: 100_000,
      ...at('PIPELINE_LIMIT'),
    }),
  };
}

function checkUrl(env: EnvReader, o: { name: string; type: KvstoreType; url: string }): void {
  const items = o.url.split(',').map((s) => s.trim());
  if (o.type === 'sentinel' && (items.length < 2 || items.some((s) => s === ''))) {
    env.problem(`${o.name}="${o.url}": a sentinel URL is the master name, then sentinel host:port items`);
  }
  if (o.type === 'cluster' && items.some((s) => s === '')) {
    env.problem(`${o.name}="${o.url}": a cluster URL is a comma-separated list of node host:port items`);
  }
}

/** `OBJCACHE_*` (aliases `MEMCACHE_*`): nodes from a list or from an SRV record, never both. */
export function readObjcache(env: EnvReader, required: boolean): ObjcacheSettings {
  const hostPorts = env.list('OBJCACHE_HOST_PORT', { alias: 'MEMCACHE_HOST_PORT' });
  const srv = env.str('OBJCACHE_SRV', { alias: 'MEMCACHE_SRV' });
  if (hostPorts.length > 0 && srv !== '') {
    env.problem('OBJCACHE_HOST_PORT and OBJCACHE_SRV exclude each other: set one');
  } else if (required && hostPorts.length === 0 && srv === '') {
    env.problem('BACKEND_TYPE=objcache needs OBJCACHE_HOST_PORT or OBJCACHE_SRV');
  }
  return {
    hostPorts,
    srv,
    srvRefreshMs: env.durationMs('OBJCACHE_SRV_REFRESH', {
      default: '0',
      min: '1s',
      max: '24h',
      zeroMeans: 'never',
      alias: 'MEMCACHE_SRV_REFRESH',
    }),
    maxIdleConns: env.int('OBJCACHE_MAX_IDLE_CONNS', {
      default: 2,
      min: 1,
      max: 1024,
      alias: 'MEMCACHE_MAX_IDLE_CONNS',
    }),
  };
}
