import type { MemoryInboxStore } from '../store/memory.js';
import type { RedisInboxStore } from '../store/redis.js';
import { createKeyLayout } from '../store/redis-keys.js';
import { toSlotPrefix } from '../store/redis.js';
import type { Settings } from '../settings.js';
import { createMemoryCircuitReports, type CircuitReports } from './circuit-reports.js';
import type { DeadLetters } from './dead-letters.js';
import { createMemoryDeadLetters } from './memory-dead-letters.js';
import { createRedisCircuitReports } from './redis-circuit-reports.js';
import { createRedisDeadLetters } from './redis-dead-letters.js';

/** What the forwarder leaves behind for the API: the dead letters and the circuit reports. */
export interface ForwardingState {
  deadLetters: DeadLetters;
  circuitReports: CircuitReports;
}

/** Beside the store: in Redis on the store's connection, else in this process's memory. */
export function createForwardingState(
  store: MemoryInboxStore | RedisInboxStore,
  settings: Pick<Settings, 'redis' | 'redisKeyPrefix'>,
  now: () => number,
): ForwardingState {
  if (store.kind === 'memory') {
    return {
      deadLetters: createMemoryDeadLetters({ store, now }),
      circuitReports: createMemoryCircuitReports({ now }),
    };
  }
  const redis = store.pool.next();
  const keys = createKeyLayout(toSlotPrefix(settings.redis, settings.redisKeyPrefix));
  return {
    deadLetters: createRedisDeadLetters({ redis, keys, now }),
    circuitReports: createRedisCircuitReports({ redis, keys, now }),
  };
}
