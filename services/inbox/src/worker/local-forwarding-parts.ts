import type { Logger, Part, Readiness } from '@portcullis/kit';
import type { Registry } from 'prom-client';
import type { Settings } from '../settings.js';
import type { MemoryInboxStore } from '../store/memory.js';
import type { RedisInboxStore } from '../store/redis.js';
import { createForwardingPart } from './forwarding-part.js';
import type { ForwardingState } from '../forwarding-store/forwarding-state.js';
import { createMemoryForwardQueue } from '../forwarding-store/memory-forward-queue.js';

export interface LocalForwardingOptions {
  store: MemoryInboxStore | RedisInboxStore;
  forwarding: ForwardingState;
  settings: Pick<Settings, 'worker' | 'egressAllowPrivate'>;
  log: Logger;
  registry: Registry;
  /** Names `local forwarder` while the forwarder's loop is not live. */
  readiness: Readiness;
  now: () => number;
  random?: (() => number) | undefined;
}

/**
 * On the memory store, the forwarder inside the inbox process, and then its readiness check; no parts on
 * Redis, where the worker processes forward (the memory store is readable from this process only).
 */
export function createLocalForwardingParts(o: LocalForwardingOptions): Part[] {
  const { store } = o;
  if (store.kind !== 'memory') return [];
  const forwarder = createForwardingPart({
    mode: 'local',
    store,
    queue: createMemoryForwardQueue({ store, log: o.log, now: o.now }),
    ...o.forwarding,
    settings: o.settings,
    log: o.log,
    registry: o.registry,
    now: o.now,
    random: o.random,
  });
  return [
    forwarder,
    {
      name: 'local forwarder readiness',
      start: () => o.readiness.addCheck('local forwarder', forwarder.isLoopLive),
      close: () => undefined,
    },
  ];
}
