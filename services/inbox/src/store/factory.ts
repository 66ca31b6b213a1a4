import type { Logger } from '@portcullis/kit';
import { createMemoryStore } from './memory.js';
import { createRedisStore } from './redis.js';
import type { InboxStore } from './types.js';

/** Redis when a URL is given, else process memory (local mode). */
export function createInboxStore(
  settings: { redisUrl: string; redisKeyPrefix: string },
  deps: { log: Logger; now?: () => number },
): InboxStore {
  if (settings.redisUrl === '') return createMemoryStore(deps.now ? { now: deps.now } : {});
  return createRedisStore({ url: settings.redisUrl, prefix: settings.redisKeyPrefix, log: deps.log });
}
