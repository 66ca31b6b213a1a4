import { trackRedis, type Logger, type Part, type Readiness } from '@portcullis/kit';
import type { Registry } from 'prom-client';
import type { InboxMetrics } from './metrics.js';
import type { Settings } from './settings.js';
import { createInboxStore } from './store/factory.js';
import type { MemoryInboxStore } from './store/memory.js';
import type { RedisInboxStore } from './store/redis.js';

export interface StorePartOptions {
  log: Logger;
  now: () => number;
  /** Where the Redis clients' metrics go. */
  registry: Registry;
  /** Counts what the memory store refuses at its bounds and what retention trims. */
  metrics: InboxMetrics;
  /** Names the store's Redis connection (`redis:store`) while it is down. */
  readiness: Readiness;
}

/** The captures' store (Redis, or this process's memory) as a start-up part: it closes the store. */
export function createStorePart(
  settings: Readonly<Settings>,
  o: StorePartOptions,
): Part & { readonly store: MemoryInboxStore | RedisInboxStore } {
  const store = createInboxStore(settings, {
    log: o.log,
    now: o.now,
    registry: o.registry,
    onFull: (what) => o.metrics.memoryStoreFull.inc({ what }),
    onTrimmed: (reason, count) => o.metrics.retentionTrimmed.inc({ reason }, count),
  });
  if (store.connection) trackRedis(o.readiness.health, 'redis:store', store.connection);
  return { name: 'store', store, start: () => undefined, close: () => store.close() };
}
