import type { EnvReader } from '@portcullis/kit';
import type { ObjcacheTls } from './memcached-tls.js';
import {
  RATELIMIT_PERSECOND_REDIS_ENV,
  RATELIMIT_REDIS_ENV,
  readRedisConnection,
  type RedisConnection,
} from '@portcullis/redis';

/** How to reach one Redis deployment (the main one, or the per-second one), and how to pipeline to it. */
export interface KvstoreConnection extends RedisConnection {
  /** How long commands of concurrent requests wait to share one flush; 0 = those of one event-loop turn share one. */
  pipelineWindowMs: number;
  /** Flush early once this many commands wait; 0 = no limit. */
  pipelineLimit: number;
  /** Cluster only: how many of one request's keys are in flight at once; 0 = all of them. */
  clusterPipelineParallelism: number;
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
  tls: ObjcacheTls;
}

/**
 * `KVSTORE_*` (aliases `REDIS_*`), and `KVSTORE_PERSECOND_*` (aliases `REDIS_PERSECOND_*`) when
 * `KVSTORE_PERSECOND=true`; the connection names are listed in lib/redis's `RATELIMIT_REDIS_ENV` tables.
 */
export function readKvstore(env: EnvReader): KvstoreSettings {
  const main: KvstoreConnection = {
    ...readRedisConnection(env, RATELIMIT_REDIS_ENV, { url: 'localhost:6379' }),
    pipelineWindowMs: env.durationMs('KVSTORE_PIPELINE_WINDOW', {
      default: '0',
      min: '1us',
      max: '1s',
      zeroMeans: 'no window',
      alias: 'REDIS_PIPELINE_WINDOW',
    }),
    pipelineLimit: env.int('KVSTORE_PIPELINE_LIMIT', {
      default: 0,
      min: 0,
      max: 100_000,
      alias: 'REDIS_PIPELINE_LIMIT',
    }),
    clusterPipelineParallelism: env.int('KVSTORE_CLUSTER_PIPELINE_PARALLELISM', {
      default: 0,
      min: 0,
      max: 1024,
      alias: 'REDIS_CLUSTER_PIPELINE_PARALLELISM',
    }),
  };
  const perSecond: KvstoreConnection | undefined = env.bool('KVSTORE_PERSECOND', {
    default: false,
    alias: 'REDIS_PERSECOND',
  })
    ? {
        ...readRedisConnection(env, RATELIMIT_PERSECOND_REDIS_ENV, { url: 'localhost:6379', tls: main.tls }),
        pipelineWindowMs: env.durationMs('KVSTORE_PERSECOND_PIPELINE_WINDOW', {
          default: '0',
          min: '1us',
          max: '1s',
          zeroMeans: 'no window',
          alias: 'REDIS_PERSECOND_PIPELINE_WINDOW',
        }),
        pipelineLimit: env.int('KVSTORE_PERSECOND_PIPELINE_LIMIT', {
          default: 0,
          min: 0,
          max: 100_000,
          alias: 'REDIS_PERSECOND_PIPELINE_LIMIT',
        }),
        clusterPipelineParallelism: env.int('KVSTORE_PERSECOND_CLUSTER_PIPELINE_PARALLELISM', {
          default: 0,
          min: 0,
          max: 1024,
          alias: 'REDIS_PERSECOND_CLUSTER_PIPELINE_PARALLELISM',
        }),
      }
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

/** `OBJCACHE_*` (aliases `MEMCACHE_*`): nodes from a list or from an SRV record, never both. */
export function readObjcache(env: EnvReader, required: boolean): ObjcacheSettings {
  const hostPorts = env.list('OBJCACHE_HOST_PORT', { alias: 'MEMCACHE_HOST_PORT' });
  const srv = env.str('OBJCACHE_SRV', { alias: 'MEMCACHE_SRV' });
  if (hostPorts.length > 0 && srv !== '') {
    env.problem('OBJCACHE_HOST_PORT and OBJCACHE_SRV exclude each other: set one');
  } else if (required && hostPorts.length === 0 && srv === '') {
    env.problem('BACKEND_TYPE=objcache needs OBJCACHE_HOST_PORT or OBJCACHE_SRV');
  }
  const tls: ObjcacheTls = {
    enabled: env.bool('OBJCACHE_TLS', { default: false, alias: 'MEMCACHE_TLS' }),
    clientCert: env.str('OBJCACHE_TLS_CLIENT_CERT', { alias: 'MEMCACHE_TLS_CLIENT_CERT' }),
    clientKey: env.str('OBJCACHE_TLS_CLIENT_KEY', { alias: 'MEMCACHE_TLS_CLIENT_KEY' }),
    caCert: env.str('OBJCACHE_TLS_CACERT', { alias: 'MEMCACHE_TLS_CACERT' }),
    skipHostnameVerification: env.bool('OBJCACHE_TLS_SKIP_HOSTNAME_VERIFICATION', {
      default: false,
      alias: 'MEMCACHE_TLS_SKIP_HOSTNAME_VERIFICATION',
    }),
  };
  if (tls.enabled && (tls.clientCert === '') !== (tls.clientKey === '')) {
    env.problem('OBJCACHE_TLS_CLIENT_CERT and OBJCACHE_TLS_CLIENT_KEY go together: set both or neither');
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
    tls,
  };
}
