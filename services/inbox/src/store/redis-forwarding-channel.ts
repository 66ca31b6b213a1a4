import type { Logger } from '@portcullis/kit';
import type { RedisClient, RedisPool } from '@portcullis/redis';
import { createForwardingWatchers } from './forwarding-watchers.js';
import type { ForwardingEvent } from '../contract/capture-records.js';
import type { ForwardingWatch } from './types.js';

/**
 * Forwarding events across processes: the process that records an attempt (a worker) PUBLISHes it on the
 * endpoint's channel, from the script that records it (redis.ts); each process with live subscribers of
 * that endpoint SUBSCRIBEs on one connection of its own, made at the first watch. Pub/sub delivers at most
 * once: an event published while that connection is down is lost, and the stream's clients read the
 * outcome from the list again (README).
 */
export function createRedisForwardingChannel(o: {
  pool: RedisPool;
  channelOf: (endpointId: string) => string;
  log: Logger;
}) {
  const log = o.log.child({ component: 'forwarding-channel' });
  const watchers = createForwardingWatchers();
  const endpointOf = new Map<string, string>();
  const subscriptions = new Map<string, Promise<void>>();
  let subscriber: RedisClient | undefined;
  const subscriberConnection = (): RedisClient => {
    if (subscriber) return subscriber;
    const conn = o.pool.dedicated();
    // runs inside ioredis's socket handler: a throw here would be uncaught and end the process
    conn.on('message', (channel: string, message: string) => {
      const endpointId = endpointOf.get(channel);
      if (endpointId === undefined) return;
      const event = parseEvent(message);
      if (event) watchers.emit(endpointId, event);
      else log.warn({ endpointId, bytes: message.length }, 'forwarding event unreadable, dropped');
    });
    return (subscriber = conn);
  };
  // one SUBSCRIBE at a time: several sent together while the connection is being set up put it in
  // subscriber mode before ioredis' ready check, which then fails every one of them
  let lastSubscribe: Promise<unknown> = Promise.resolve();
  const subscribe = (channel: string): Promise<void> => {
    const done = lastSubscribe
      .catch(() => undefined)
      .then(() => subscriberConnection().subscribe(channel))
      .then(() => undefined);
    lastSubscribe = done;
    return done;
  };
  return {
    watch(endpointId: string, listener: (e: ForwardingEvent) => void): ForwardingWatch {
      const channel = o.channelOf(endpointId);
      if (watchers.add(endpointId, listener)) {
        endpointOf.set(channel, endpointId);
        subscriptions.set(channel, subscribe(channel));
      }
      return {
        subscribed: subscriptions.get(channel) ?? Promise.resolve(),
        stop() {
          if (!watchers.remove(endpointId, listener)) return;
          endpointOf.delete(channel);
          subscriptions.delete(channel);
          subscriber?.unsubscribe(channel).catch(() => undefined);
        },
      };
    },
    close(): void {
      subscriber?.disconnect();
    },
  };
}

/** A published event, or undefined for anything else on the channel. */
function parseEvent(message: string): ForwardingEvent | undefined {
  try {
    const event: unknown = JSON.parse(message);
    return typeof event === 'object' &&
      event !== null &&
      typeof (event as ForwardingEvent).requestId === 'string'
      ? (event as ForwardingEvent)
      : undefined;
  } catch {
    return undefined;
  }
}
