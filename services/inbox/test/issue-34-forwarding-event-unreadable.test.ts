import { setTimeout as sleep } from 'node:timers/promises';
import { createCollectingLog, startRedis, waitUntil, type RedisServer } from '@portcullis/testing';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toSingleConnection } from '@portcullis/redis';
import type { ForwardingEvent } from '../src/contract/capture-records.js';
import { createRedisStore, type RedisInboxStore } from '../src/store/redis.js';

const ENDPOINT_ID = 'issue-34-events-0123456789';
const CHANNEL = `inbox:ep:{${ENDPOINT_ID}}:fwd-events`;

/**
 * Issue 34 item 8: a process must never die from a driver callback. A forwarding event is read in
 * ioredis's `message` callback, inside its socket's data handler: a message that was not an event's JSON
 * (anything that can PUBLISH on the channel) threw there, uncaught, and the inbox server died. It is
 * dropped with a warning, and the next event still reaches the watchers.
 */
describe('issue 34: an unreadable forwarding event on the pub/sub channel', () => {
  let redis: RedisServer;
  let publisher: Redis;
  let store: RedisInboxStore;
  const { log, lines } = createCollectingLog();
  beforeAll(async () => {
    redis = await startRedis();
    publisher = new Redis(`redis://${redis.address}`);
    store = createRedisStore({ connection: toSingleConnection(redis.address), prefix: 'inbox:', log });
  });
  afterAll(async () => {
    await store.close();
    publisher.disconnect();
    await redis.stop();
  });

  it('is dropped with a warning; the process and the watch live on', async () => {
    const uncaught: string[] = [];
    const onUncaught = (err: Error): void => void uncaught.push(err.message);
    process.prependListener('uncaughtException', onUncaught);
    try {
      const received: ForwardingEvent[] = [];
      const watch = store.watchForwarding(ENDPOINT_ID, (e) => received.push(e));
      await watch.subscribed;
      const event: ForwardingEvent = {
        requestId: '1-0',
        target: 'http://127.0.0.1:1/',
        attempt: 1,
        at: '2026-11-29T00:00:00.000Z',
        status: 200,
        outcome: 'delivered',
      };
      for (const message of ['not json', '"a string"', 'null', JSON.stringify(event)]) {
        await publisher.publish(CHANNEL, message);
      }
      await waitUntil(() => received.length > 0);
      await sleep(50);
      watch.stop();
      expect(uncaught).toEqual([]);
      expect(received).toEqual([event]);
      expect(lines.filter((l) => l['@message'] === 'forwarding event unreadable, dropped')).toHaveLength(3);
    } finally {
      process.off('uncaughtException', onUncaught);
    }
  });
});
