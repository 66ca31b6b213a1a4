import { createScryptHasher, type PasswordHasher } from '@portcullis/accounts';
import { freePort, quietLog, startRedis, waitUntil, type RedisServer } from '@portcullis/testing';
import { createSotwServer } from '@portcullis/xds';
import { afterEach, describe, expect, it } from 'vitest';
import { startInbox } from '../src/app.js';
import { INBOX_ENDPOINT_TYPE } from '../src/managed-endpoints/inbox-endpoint-resources.js';
import { loadSettings } from '../src/settings.js';
import { ADMIN_TOKEN, NO_FALLBACK_LIMITS, sendRaw, startInboxHarness } from './harness.js';

async function probe(base: string, path: '/healthz' | '/readyz'): Promise<{ status: number; body: unknown }> {
  const res = await fetch(base + path);
  return { status: res.status, body: await res.json() };
}

/** A password hash held until the test lets it finish: a sign-up in flight for as long as the test needs. */
function heldHasher(): { hasher: PasswordHasher; release(): void; waiting(): number } {
  const cheap = createScryptHasher({ ln: 10 });
  const held: Array<() => void> = [];
  return {
    hasher: {
      hash: async (p) => {
        await new Promise<void>((resolve) => held.push(resolve));
        return cheap.hash(p);
      },
      verify: (p, stored) => cheap.verify(p, stored),
      needsRehash: (stored) => cheap.needsRehash(stored),
    },
    release: () => held.splice(0).forEach((resolve) => resolve()),
    waiting: () => held.length,
  };
}

describe('inbox health: /healthz liveness, /readyz readiness', () => {
  const cleanup: Array<() => unknown> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  it('follows both Redis connections: 503 naming them while Redis is down, 200 once it is back', async () => {
    let redis: RedisServer = await startRedis();
    cleanup.push(() => redis.stop());
    const h = await startInboxHarness({ REDIS_URL: `redis://${redis.address}` });
    cleanup.push(() => h.close());
    await waitUntil(async () => (await probe(h.url, '/readyz')).status === 200);
    expect(await probe(h.url, '/readyz')).toEqual({ status: 200, body: { status: 'ready' } });

    await redis.stop();
    await waitUntil(async () => (await probe(h.url, '/readyz')).status === 503);
    await waitUntil(async () =>
      JSON.stringify((await probe(h.url, '/readyz')).body).includes('redis:store, redis:accounts'),
    );
    expect(await probe(h.url, '/readyz')).toEqual({
      status: 503,
      body: { error: 'not ready: redis:store, redis:accounts', code: 'NOT_READY' },
    });
    expect(await probe(h.url, '/healthz')).toEqual({ status: 200, body: { status: 'ok' } });

    redis = await startRedis({ port: redis.port });
    await waitUntil(async () => (await probe(h.url, '/readyz')).status === 200);
  });

  it('is ready without Redis (memory store): nothing to reach', async () => {
    const h = await startInboxHarness();
    cleanup.push(() => h.close());
    expect(await probe(h.url, '/readyz')).toEqual({ status: 200, body: { status: 'ready' } });
  });

  it('is not ready in xDS mode until the first InboxEndpoints are applied, while live all along', async () => {
    const port = await freePort();
    const xdsPort = await freePort();
    const starting = startInbox(
      loadSettings({
        INBOX_HOST: '127.0.0.1',
        INBOX_PORT: String(port),
        INBOX_ADMIN_TOKEN: ADMIN_TOKEN,
        INBOX_XDS_SERVER_URL: `127.0.0.1:${xdsPort}`,
        INBOX_XDS_RETRY_INTERVAL: '100ms',
        ...NO_FALLBACK_LIMITS,
      }),
      { log: quietLog },
    );
    cleanup.push(async () => (await starting).close());
    const base = `http://127.0.0.1:${port}`;
    await waitUntil(async () => {
      try {
        return (await probe(base, '/healthz')).status === 200;
      } catch {
        return false; // not listening yet
      }
    });
    expect(await probe(base, '/readyz')).toEqual({
      status: 503,
      body: { error: 'not ready: xds', code: 'NOT_READY' },
    });

    const xds = createSotwServer({ host: '127.0.0.1', port: xdsPort, log: quietLog });
    xds.setResources(INBOX_ENDPOINT_TYPE, []);
    await xds.start();
    cleanup.push(() => xds.close());
    await starting;
    expect(await probe(base, '/readyz')).toEqual({ status: 200, body: { status: 'ready' } });
  });

  it('on SIGTERM fails readiness at once and keeps serving through the drain delay', async () => {
    const h = await startInboxHarness({ INBOX_SHUTDOWN_DELAY: '1s' });
    cleanup.push(() => h.close());
    const stopping = h.app.readiness.stopTraffic('SIGTERM');
    expect(await probe(h.url, '/readyz')).toEqual({
      status: 503,
      body: { error: 'not ready: shutdown', code: 'NOT_READY' },
    });
    expect(await probe(h.url, '/healthz')).toEqual({ status: 200, body: { status: 'ok' } });
    expect((await h.createEndpoint('still-served')).name).toBe('still-served');
    await stopping;
  });

  it('lets sign-ups in flight at close() finish against Redis: the backends close after the drain', async () => {
    const redis = await startRedis();
    cleanup.push(() => redis.stop());
    const held = heldHasher();
    const h = await startInboxHarness(
      { REDIS_URL: `redis://${redis.address}` },
      { passwordHasher: held.hasher },
    );
    let closed = false;
    cleanup.push(async () => {
      held.release();
      if (!closed) await h.close();
    });
    const signUps = ['ann', 'bob'].map((username) =>
      sendRaw(h.port, 'POST', '/api/accounts', {
        body: JSON.stringify({ username, password: 'correct horse battery' }),
        headers: { 'content-type': 'application/json', 'x-inbox-csrf': '1' },
      }),
    );
    await waitUntil(() => held.waiting() === 2);

    const closing = h.close();
    expect(h.app.readiness.failing()).toEqual(['shutdown']);
    held.release();
    const answers = await Promise.all(signUps);
    await closing;
    closed = true;
    expect(answers.map((a) => a.status)).toEqual([201, 201]);
  });
});
