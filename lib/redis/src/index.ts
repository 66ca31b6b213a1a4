export { createRedisCaller, type BackendErrorFactory, type RedisCaller } from './call-redis.js';
export { createRedisClient } from './client.js';
export { FAIL_FAST_POLICY, NO_QUEUE_POLICY, type ClientPolicy } from './client-policy.js';
export {
  GATEWAY_REDIS_ENV,
  INBOX_REDIS_ENV,
  RATELIMIT_PERSECOND_REDIS_ENV,
  RATELIMIT_REDIS_ENV,
  readRedisConnection,
  toSingleConnection,
  type EnvName,
  type RedisConnectionDefaults,
  type RedisEnvNames,
} from './connection-settings.js';
export { registerRedisMetrics } from './metrics.js';
export { createRedisPool, type RedisPool, type RedisPoolOptions, type RedisPoolStats } from './pool.js';
export { defineScript, type RedisScript, type ScriptOptions } from './script.js';
export { REDIS_TYPES, type RedisClient, type RedisConnection, type RedisType } from './types.js';
