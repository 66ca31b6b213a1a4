import type { EnvReader } from '@portcullis/kit';
import { INBOX_REDIS_ENV, readRedisConnection, type RedisConnection } from '@portcullis/redis';

/** Where captures are kept, and for how long. */
export interface StoreSettings {
  /** For endpoints created through the API; InboxEndpoint resources carry their own. */
  retention: { maxRequests: number; maxAgeMs: number };
  /** How often captures older than their endpoint's maximum age are trimmed. */
  trimIntervalMs: number;
  /** Redis for captures, forwarding, accounts and sessions (lib/redis's `INBOX_REDIS_ENV` names); empty URL: memory (local mode). */
  redis: RedisConnection;
  /** Start of every Redis key. */
  redisKeyPrefix: string;
}

export function readStoreSettings(env: EnvReader): StoreSettings {
  return {
    retention: {
      maxRequests: env.int('INBOX_RETENTION_MAX_REQUESTS', { default: 500, min: 1, max: 100_000 }),
      maxAgeMs: env.durationMs('INBOX_RETENTION_MAX_AGE', { default: '168h', min: '10ms', max: '8760h' }),
    },
    trimIntervalMs: env.durationMs('INBOX_RETENTION_TRIM_INTERVAL', {
      default: '1m',
      min: '10ms',
      max: '24h',
    }),
    redis: readRedisConnection(env, INBOX_REDIS_ENV, { url: '' }),
    redisKeyPrefix: env.str('INBOX_REDIS_KEY_PREFIX', { default: 'inbox:' }),
  };
}
