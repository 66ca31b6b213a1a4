import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Running } from '@portcullis/kit';
import { startRedis, type RedisServer } from '@portcullis/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { loadSettings } from '../src/settings.js';
import type { ForwardingEvent } from '../src/contract/capture-records.js';
import { startWorker } from '../src/worker/worker-app.js';
import {
  ADMIN_TOKEN,
  forwardTarget,
  quietLog,
  startInboxHarness,
  STORE_KINDS,
  type InboxHarness,
} from './harness.js';
import { openSse } from './sse-client.js';

const FORWARDER_ENV = {
  INBOX_EGRESS_ALLOW_PRIVATE: 'true',
  INBOX_WORKER_CLAIM_IDLE: '300ms',
  INBOX_WORKER_POLL_INTERVAL: '100ms',
};

const cleanup: Array<() => unknown> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** A target answering 503 to its first request and 200 after. */
async function startFlakyTarget(): Promise<string> {
  let received = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(++received === 1 ? 503 : 200).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanup.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Memory: an inbox forwarding in its own process. Redis: an inbox, and a worker of its own beside it. */
async function startForwarding(kind: (typeof STORE_KINDS)[number]): Promise<InboxHarness> {
  let redis: RedisServer | undefined;
  if (kind === 'redis') {
    const server = await startRedis();
    cleanup.push(() => server.stop());
    redis = server;
  }
  const env = { ...FORWARDER_ENV, ...(redis ? { REDIS_URL: `redis://${redis.address}` } : {}) };
  const inbox = await startInboxHarness(env);
  cleanup.push(() => inbox.close());
  if (redis) {
    const worker: Running = await startWorker(
      loadSettings({ ...env, INBOX_HOST: '127.0.0.1', INBOX_WORKER_PORT: '0', INBOX_WORKER_NAME: 'live' }),
      { log: quietLog },
    );
    cleanup.push(() => worker.close());
  }
  return inbox;
}

describe.each(STORE_KINDS)('live forwarding outcomes (%s store)', (kind) => {
  it('streams `forwarding` events as attempts are recorded, the retry then the delivery, and lists the last', async () => {
    const url = await startFlakyTarget();
    const h = await startForwarding(kind);
    const id = 'live-fwd-0123456789abcdef';
    const forward = forwardTarget(url, { maxAttempts: 3 });
    await h.app.store.syncManagedEndpoints([
      {
        id,
        name: 'live',
        resource: 'default/live',
        retention: { maxRequests: 10, maxAgeMs: 3_600_000 },
        forward: [forward],
      },
    ]);
    const sse = await openSse(`${h.url}/api/endpoints/${id}/stream`, { token: ADMIN_TOKEN });
    cleanup.push(() => sse.close());
    await sse.waitFor((events) => events.some((e) => e.event === 'ready'));

    const sent = await h.send('POST', `/api/hook/${id}/a`, { body: '{}' });
    const requestId = (sent.json as { requestId: string }).requestId;
    const forwarding = (): ForwardingEvent[] =>
      sse.events.filter((e) => e.event === 'forwarding').map((e) => e.data as ForwardingEvent);
    await sse.waitFor(() => forwarding().length === 2);

    expect(forwarding().map((e) => [e.requestId, e.target, e.attempt, e.status, e.outcome])).toEqual([
      [requestId, url, 1, 503, 'retrying'],
      [requestId, url, 2, 200, 'delivered'],
    ]);
    expect(sse.events.filter((e) => e.event === 'forwarding').every((e) => e.id === undefined)).toBe(true);
    const list = await h.api('GET', `/api/endpoints/${id}/requests`, { token: ADMIN_TOKEN });
    expect(
      (list.json as { requests: Array<{ lastForwarding: ForwardingEvent | null }> }).requests.map((r) => [
        r.lastForwarding?.attempt,
        r.lastForwarding?.outcome,
      ]),
    ).toEqual([[2, 'delivered']]);
  });
});
