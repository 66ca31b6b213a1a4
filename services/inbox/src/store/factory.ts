import type { Logger } from '@portcullis/kit';
import { registerRedisMetrics, type RedisConnection } from '@portcullis/redis';
import type { Registry } from 'prom-client';
import { createMemoryStore, type MemoryInboxStore } from './memory.js';
import { createRedisStore, type RedisInboxStore } from './redis.js';
import type { OnTrimmed } from './types.js';

/** Redis when a URL is given, else process memory (local mode) within `memoryStore`'s bounds. */
export function createInboxStore(
  settings: {
    redis: RedisConnection;
    redisKeyPrefix: string;
    memoryStore: { maxBytes: number; maxEndpoints: number };
  },
  deps: {
    log: Logger;
    now?: () => number;
    onFull?: (what: 'capture' | 'endpoint') => void;
    onTrimmed?: OnTrimmed;
    /** Where the Redis clients' metrics go (`pool="store"`). */
    registry?: Registry;
  },
): MemoryInboxStore | RedisInboxStore {
  if (settings.redis.url === '') {
    return createMemoryStore({
      ...settings.memoryStore,
      ...(deps.now ? { now: deps.now } : {}),
      ...(deps.onFull ? { onFull: deps.onFull } : {}),
      ...(deps.onTrimmed ? { onTrimmed: deps.onTrimmed } : {}),
    });
  }
  const store = createRedisStore({
    connection: settings.redis,
    prefix: settings.redisKeyPrefix,
    log: deps.log,
    ...(deps.onTrimmed ? { onTrimmed: deps.onTrimmed } : {}),
  });
  if (deps.registry) registerRedisMetrics(deps.registry, 'store', store.pool);
  return store;
}
