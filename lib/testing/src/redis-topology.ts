import { startRedis, type RedisOptions } from './redis.js';
import { startRedisCluster } from './redis-cluster.js';
import { startRedisSentinelSet } from './redis-sentinel.js';

/** The values a `*_REDIS_TYPE` setting takes. */
export const REDIS_TOPOLOGIES = ['single', 'sentinel', 'cluster'] as const;
export type RedisTopology = (typeof REDIS_TOPOLOGIES)[number];

/** A fresh Redis of one topology, as a service reaches it: `*_REDIS_TYPE=type`, `*_REDIS_URL=url`. */
export interface RedisDeployment {
  type: RedisTopology;
  url: string;
  stop(): Promise<void>;
}

type DeploymentOptions = Pick<RedisOptions, 'args'>;

const START: Record<RedisTopology, (opts: DeploymentOptions) => Promise<Omit<RedisDeployment, 'type'>>> = {
  single: async (opts) => {
    const redis = await startRedis(opts);
    return { url: `redis://${redis.address}`, stop: () => redis.stop() };
  },
  sentinel: startRedisSentinelSet,
  cluster: (opts) => startRedisCluster(3, opts),
};

/**
 * A redis-server, a sentinel set (`startRedisSentinelSet`) or a three-master cluster (`startRedisCluster`),
 * every data node given `args`.
 */
export async function startRedisDeployment(
  type: RedisTopology,
  opts: DeploymentOptions = {},
): Promise<RedisDeployment> {
  const started = await START[type](opts);
  return { type, url: started.url, stop: () => started.stop() };
}
