import type { Logger } from '@portcullis/kit';
import { createMemoryStore } from './memory.js';
import { createRedisStore } from './redis.js';
import type { InboxStore } from './types.js';

/** Redis when a URL is given, else process memory (local mode) within `memoryStore`'s bounds. */
export function createInboxStore(
  settings: {
    redisUrl: string;
    redisKeyPrefix: string;
    memoryStore: { maxBytes: number; maxEndpoints: number };
  },
  deps: { log: Logger; now?: () => number; onFull?: (what: 'capture' | 'endpoint') => void },
): InboxStore {
  if (settings.redisUrl === '') {
    return createMemoryStore({
      ...settings.memoryStore,
      ...(deps.now ? { now: deps.now } : {}),
      ...(deps.onFull ? { onFull: deps.onFull } : {}),
    });
  }
  return createRedisStore({ url: settings.redisUrl, prefix: settings.redisKeyPrefix, log: deps.log });
}
