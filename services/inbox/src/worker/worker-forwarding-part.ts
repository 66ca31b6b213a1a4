import { trackRedis, type Logger, type Readiness } from '@portcullis/kit';
import type { Registry } from 'prom-client';
import type { Settings } from '../settings.js';
import type { MemoryInboxStore } from '../store/memory.js';
import type { RedisInboxStore } from '../store/redis.js';
import { createForwardingPart, type ForwardingPart } from './forwarding-part.js';
import { createForwardingState } from '../forwarding-store/forwarding-state.js';
import { createRedisForwardQueue } from '../forwarding-store/redis-forward-queue.js';

export interface WorkerForwardingOptions {
  /** Redis, as the worker needs it; the dead letters and circuit reports are kept beside it. */
  store: MemoryInboxStore | RedisInboxStore;
  log: Logger;
  registry: Registry;
  /** Names the queue's Redis connection (`redis:queue`) while it is down, and `consumer loop` until it goes round. */
  readiness: Readiness;
  now: () => number;
  random?: (() => number) | undefined;
}

/** The worker's forwarder, reading the Redis forward queue as consumer `INBOX_WORKER_NAME`. */
export function createWorkerForwardingPart(
  settings: Readonly<Settings>,
  o: WorkerForwardingOptions,
): ForwardingPart {
  const { store, log, now } = o;
  const queue = createRedisForwardQueue({
    connection: settings.redis,
    prefix: settings.redisKeyPrefix,
    consumerName: settings.worker.consumerName,
    log,
  });
  trackRedis(o.readiness.health, 'redis:queue', queue.connection);
  const forwarding = createForwardingPart({
    mode: 'worker',
    store,
    queue,
    ...createForwardingState(store, settings, now),
    settings,
    log,
    registry: o.registry,
    now,
    random: o.random,
  });
  // before the port opens: /readyz names it until the loop has gone round (startWorker resolves then)
  o.readiness.addCheck('consumer loop', forwarding.isLoopLive);
  return forwarding;
}
