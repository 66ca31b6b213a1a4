import { SettingsError, startParts, type Logger, type Running } from '@portcullis/kit';
import type { Settings } from '../settings.js';
import { createInboxStore } from '../store/factory.js';
import { createEgressPolicy } from './egress-policy.js';
import { createForwardQueue } from './forward-queue.js';
import { createForwarder, type Forwarder } from './forwarder.js';

export interface WorkerDeps {
  log: Logger;
  now?: () => number;
  random?: () => number;
}

/**
 * The forwarding worker: store → queue → forwarder, closed in reverse. It needs Redis: the memory store
 * lives inside one inbox process, where a separate worker cannot read it.
 */
export async function startWorker(settings: Readonly<Settings>, deps: WorkerDeps): Promise<Running> {
  if (settings.redis.url === '') {
    throw new SettingsError([
      'INBOX_REDIS_URL: the forwarding worker needs Redis (the memory store is per process)',
    ]);
  }
  const log = deps.log.child({ component: 'inbox-worker', consumer: settings.worker.consumerName });
  const store = createInboxStore(settings, { log });
  const queue = createForwardQueue({
    connection: settings.redis,
    prefix: settings.redisKeyPrefix,
    consumerName: settings.worker.consumerName,
    log,
  });
  let forwarder: Forwarder | undefined;
  return startParts(
    [
      { name: 'store', start: () => undefined, close: () => store.close() },
      {
        name: 'forwarder',
        start: () => {
          forwarder = createForwarder({
            store,
            queue,
            egress: createEgressPolicy({ allowPrivate: settings.egressAllowPrivate }),
            log,
            claimIdleMs: settings.worker.claimIdleMs,
            pollMs: settings.worker.pollMs,
            maxInFlight: settings.worker.maxInFlight,
            ...(deps.now ? { now: deps.now } : {}),
            ...(deps.random ? { random: deps.random } : {}),
          });
          forwarder.start();
          log.info({ egressAllowPrivate: settings.egressAllowPrivate }, 'forwarding worker started');
        },
        close: () => forwarder?.stop(),
      },
    ],
    log,
  );
}
