import type { Cluster, Redis } from 'ioredis';

export const REDIS_TYPES = ['single', 'sentinel', 'cluster'] as const;
export type RedisType = (typeof REDIS_TYPES)[number];

export type RedisClient = Redis | Cluster;

/** How to reach one Redis deployment, as `readRedisConnection` reads it. */
export interface RedisConnection {
  type: RedisType;
  /**
   * `single`: `host:port`, a socket path, or a `redis://`/`rediss://` URL; `sentinel`: `master,host:port,…`;
   * `cluster`: `host:port,…`.
   */
  url: string;
  socketType: 'tcp' | 'unix';
  /** Clients kept, used round-robin (`RedisPool.next`). */
  poolSize: number;
  /** `password` or `user:password`; empty for none. */
  auth: string;
  /** For `sentinel`: what the sentinels themselves require, in the same form; empty for none. */
  sentinelAuth: string;
  tls: { enabled: boolean; clientCert: string; clientKey: string; caCert: string };
  /** Connect timeout; also each command's under `NO_QUEUE_POLICY`. */
  timeoutMs: number;
}
