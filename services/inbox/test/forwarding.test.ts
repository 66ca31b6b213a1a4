import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ForwardTarget } from '@portcullis/config';
import type { Running } from '@portcullis/kit';
import { startRedis, type RedisServer } from '@portcullis/testing';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../src/settings.js';
import type { ForwardAttempt, ManagedEndpoint } from '../src/store/types.js';
import { startWorker } from '../src/worker/worker-app.js';
import { ADMIN_TOKEN, quietLog, startInboxHarness, waitUntil, type InboxHarness } from './harness.js';

interface Received {
  method: string;
  url: string;
  rawHeaders: string[];
  body: Buffer;
}

/** What a target answers to its n-th request (1-based): a status, or `hang` (never answers). */
type Answer = (n: number) => number | 'hang';

interface Target {
  url: string;
  received: Received[];
  close(): Promise<void>;
}

async function startTarget(answer: Answer): Promise<Target> {
  const received: Received[] = [];
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        method: req.method ?? '',
        url: req.url ?? '',
        rawHeaders: req.rawHeaders,
        body: Buffer.concat(chunks),
      });
      const a = answer(received.length);
      if (a !== 'hang') res.writeHead(a).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const target = (url: string, o: Partial<ForwardTarget> = {}): ForwardTarget => ({
  url,
  pathMode: 'append',
  enabled: true,
  timeoutSeconds: 30,
  maxAttempts: 5,
  initialDelaySeconds: 0, // retries at once: the tests wait for outcomes, never for time
  maxDelaySeconds: 0,
  ...o,
});

let redis: RedisServer;
let h: InboxHarness;
let client: Redis;
const managed: ManagedEndpoint[] = [];
const running: Running[] = [];
const targets: Target[] = [];

beforeAll(async () => {
  redis = await startRedis();
  h = await startInboxHarness({ REDIS_URL: `redis://${redis.address}` });
  client = new Redis(`redis://${redis.address}`);
});
afterEach(async () => {
  // targets first: a worker's close waits for its deliveries under way, which a closed target ends
  for (const t of targets.splice(0)) await t.close();
  for (const r of running.splice(0)) await r.close();
});
afterAll(async () => {
  client.disconnect();
  await h.close();
  await redis.stop();
});

async function addEndpoint(name: string, forward: ForwardTarget[]): Promise<string> {
  const id = `fwd-${name}-0123456789abcdef`;
  managed.push({
    id,
    name,
    resource: `default/${name}`,
    retention: { maxRequests: 100, maxAgeMs: 3_600_000 },
    forward,
  });
  await h.app.store.syncManagedEndpoints(managed);
  return id;
}

async function runWorker(name: string, env: Record<string, string> = {}): Promise<Running> {
  const settings = loadSettings({
    REDIS_URL: `redis://${redis.address}`,
    INBOX_EGRESS_ALLOW_PRIVATE: 'true',
    INBOX_WORKER_NAME: name,
    INBOX_WORKER_CLAIM_IDLE: '300ms',
    INBOX_WORKER_POLL_INTERVAL: '100ms',
    ...env,
  });
  const worker = await startWorker(settings, { log: quietLog });
  running.push(worker);
  return worker;
}

async function addTarget(answer: Answer): Promise<Target> {
  const t = await startTarget(answer);
  targets.push(t);
  return t;
}

async function capture(id: string, path = '', body = '{"n":1}'): Promise<string> {
  const r = await h.send('POST', `/api/hook/${id}${path}`, {
    rawHeaders: ['Content-Type', 'application/json'],
    body,
  });
  return (r.json as { requestId: string }).requestId;
}

async function forwarding(id: string, requestId: string): Promise<ForwardAttempt[]> {
  const r = await h.api('GET', `/api/endpoints/${id}/requests/${requestId}`, { token: ADMIN_TOKEN });
  return (r.json as { forwarding: ForwardAttempt[] }).forwarding;
}

const isSettled = (attempts: ForwardAttempt[]): boolean => attempts.some((a) => a.outcome !== 'retrying');
const pendingCount = async (id: string): Promise<number> =>
  ((await client.xpending(`inbox:ep:{${id}}:req`, 'forwarders')) as [number])[0];

describe('forwarding worker (redis)', () => {
  it('sends the exact bytes, method, raw path and query, and headers in order, case and duplicates', async () => {
    const t = await addTarget(() => 202);
    const id = await addEndpoint('github', [target(`${t.url}/hooks`)]);
    await runWorker('w-exact');
    const secret = 'webhook-secret';
    const body = Buffer.from('{"action":"opened",\r\n "number": 1}\n');
    const signature = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
    const sent = [
      'User-Agent',
      'GitHub-Hookshot/1',
      'X-GitHub-Event',
      'push',
      'X-Hub-Signature-256',
      signature,
    ]
      .concat(['x-dup', '1', 'Content-Type', 'application/json', 'X-Dup', '2'])
      .concat(['Connection', 'keep-alive, X-Hop', 'X-Hop', 'dropped']);
    const r = await h.send('PUT', `/api/hook/${id}/gh/events?x=1&y=%2F&x=2`, { rawHeaders: sent, body });
    const requestId = (r.json as { requestId: string }).requestId;

    await waitUntil(async () => isSettled(await forwarding(id, requestId)));
    expect(t.received).toHaveLength(1);
    const got = t.received[0];
    if (!got) throw new Error('nothing received');
    expect([got.method, got.url]).toEqual(['PUT', '/hooks/gh/events?x=1&y=%2F&x=2']);
    expect(got.body.equals(body)).toBe(true);
    const received = got.rawHeaders;
    const hmac = `sha256=${createHmac('sha256', secret).update(got.body).digest('hex')}`;
    const theirs = received[received.findIndex((n) => n === 'X-Hub-Signature-256') + 1];
    expect(theirs).toBe(hmac);
    expect(received).toEqual([
      ...['Host', new URL(t.url).host, 'User-Agent', 'GitHub-Hookshot/1', 'X-GitHub-Event', 'push'],
      ...['X-Hub-Signature-256', signature, 'x-dup', '1', 'Content-Type', 'application/json', 'X-Dup', '2'],
      ...['Content-Length', String(body.length), 'X-Forwarded-Host', `127.0.0.1:${h.port}`],
      ...['Connection', 'keep-alive'],
    ]);
    expect(await forwarding(id, requestId)).toEqual([
      {
        target: `${t.url}/hooks`,
        attempt: 1,
        status: 202,
        at: expect.any(String) as unknown,
        outcome: 'delivered',
      },
    ]);
    await waitUntil(async () => (await pendingCount(id)) === 0);
  });

  it('sends to exactly the target URL (plus the query) with pathMode exact', async () => {
    const t = await addTarget(() => 200);
    const id = await addEndpoint('exact', [target(`${t.url}/in`, { pathMode: 'exact' })]);
    await runWorker('w-exact-path');
    await capture(id, '/a/b?q=1');
    await waitUntil(() => t.received.length === 1);
    expect(t.received[0]?.url).toBe('/in?q=1');
  });

  it('retries a failing target and records every attempt: 500, 500, then 200 is delivered once', async () => {
    const t = await addTarget((n) => (n <= 2 ? 500 : 200));
    const id = await addEndpoint('flaky', [target(t.url)]);
    await runWorker('w-retry');
    const requestId = await capture(id, '/x');
    await waitUntil(async () => isSettled(await forwarding(id, requestId)));
    const attempts = await forwarding(id, requestId);
    expect(attempts.map((a) => [a.attempt, a.status, a.outcome])).toEqual([
      [1, 500, 'retrying'],
      [2, 500, 'retrying'],
      [3, 200, 'delivered'],
    ]);
    expect(attempts[0]?.nextAttemptAt).toEqual(expect.any(String));
    // the list shows each capture's latest attempt (what the inspector's rows show)
    const list = await h.api('GET', `/api/endpoints/${id}/requests`, { token: ADMIN_TOKEN });
    expect((list.json as { requests: unknown[] }).requests).toEqual([
      expect.objectContaining({ id: requestId, lastForwarding: attempts[2] }),
    ]);
    await waitUntil(async () => (await pendingCount(id)) === 0);
    expect(t.received).toHaveLength(3);
  });

  it('dead-letters a capture once its target has used up maxAttempts', async () => {
    const t = await addTarget(() => 503);
    const id = await addEndpoint('down', [target(t.url, { maxAttempts: 3 })]);
    await runWorker('w-dead');
    const requestId = await capture(id);
    await waitUntil(async () => isSettled(await forwarding(id, requestId)));
    const attempts = await forwarding(id, requestId);
    expect(attempts.map((a) => [a.attempt, a.status, a.outcome])).toEqual([
      [1, 503, 'retrying'],
      [2, 503, 'retrying'],
      [3, 503, 'dead'],
    ]);
    expect(attempts[2]?.nextAttemptAt).toBeUndefined();
    const letters = await client.xrange('inbox:fwd:dlq', '-', '+');
    const mine = letters.map(([, f]) => f).find((f) => f.includes(requestId) && f.includes(id));
    expect(mine).toEqual([
      'endpointId',
      id,
      'requestId',
      requestId,
      'target',
      t.url,
      'attempts',
      '3',
      'last',
      '503',
      'at',
      attempts[2]?.at,
    ]);
    await waitUntil(async () => (await pendingCount(id)) === 0);
  });

  it('hands a capture whose worker stopped before its retry to another one: nothing is lost', async () => {
    const t = await addTarget((n) => (n === 1 ? 'hang' : 200));
    const id = await addEndpoint('crash', [target(t.url, { timeoutSeconds: 1 })]);
    const first = await runWorker('w-first');
    const requestId = await capture(id, '/crash');
    await waitUntil(() => t.received.length === 1);
    // the delivery under way runs to its timeout and is recorded; the retry is left to another worker
    await first.close();
    expect((await forwarding(id, requestId)).map((a) => [a.attempt, a.outcome])).toEqual([[1, 'retrying']]);
    expect(await pendingCount(id)).toBe(1);

    await runWorker('w-second');
    await waitUntil(async () => isSettled(await forwarding(id, requestId)));
    expect((await forwarding(id, requestId)).map((a) => [a.attempt, a.status, a.outcome])).toEqual([
      [1, undefined, 'retrying'],
      [2, 200, 'delivered'],
    ]);
    expect(t.received.map((r) => r.url)).toEqual(['/crash', '/crash']);
    await waitUntil(async () => (await pendingCount(id)) === 0);
  });

  it('has more than ten deliveries in flight without a listener-leak warning', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error): void => void warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      const t = await addTarget(() => 'hang');
      const id = await addEndpoint('parallel', [target(t.url)]);
      await runWorker('w-parallel');
      await Promise.all(Array.from({ length: 12 }, (_, i) => capture(id, `/${i}`)));
      await waitUntil(() => t.received.length === 12);
      expect(warnings).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('refuses a loopback target unless private egress is allowed, without retrying', async () => {
    const t = await addTarget(() => 200);
    const id = await addEndpoint('ssrf', [target(t.url)]);
    await runWorker('w-egress', { INBOX_EGRESS_ALLOW_PRIVATE: 'false' });
    const requestId = await capture(id);
    await waitUntil(async () => isSettled(await forwarding(id, requestId)));
    expect(await forwarding(id, requestId)).toEqual([
      {
        target: t.url,
        attempt: 1,
        error: 'egress refused: 127.0.0.1 resolves to the non-public address 127.0.0.1',
        at: expect.any(String) as unknown,
        outcome: 'dead',
      },
    ]);
    expect(t.received).toEqual([]);
  });
});

describe('forwarding worker settings', () => {
  it('refuses to start without Redis', async () => {
    await expect(startWorker(loadSettings({}), { log: quietLog })).rejects.toThrow(
      /REDIS_URL: the forwarding worker needs Redis/,
    );
  });
});
