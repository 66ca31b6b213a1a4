import { createHmac } from 'node:crypto';
import { hostname } from 'node:os';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ForwardTarget } from '@portcullis/config';
import type { Running } from '@portcullis/kit';
import { createCollectingLog, startRedis, waitFor, type RedisServer } from '@portcullis/testing';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadSettings } from '../src/settings.js';
import type { ForwardAttempt } from '../src/contract/capture-records.js';
import type { ManagedEndpoint } from '../src/store/types.js';
import { startWorker } from '../src/worker/worker-app.js';
import {
  ADMIN_TOKEN,
  forwardTarget,
  quietLog,
  startInboxHarness,
  STORE_KINDS,
  waitUntil,
  type InboxHarness,
  type StoreKind,
} from './harness.js';

interface Received {
  method: string;
  url: string;
  rawHeaders: string[];
  body: Buffer;
}

/** What a target answers to its n-th request (1-based): a status (with a Retry-After), or `hang` (never answers). */
type Answer = (n: number) => number | { status: number; retryAfter: string } | 'hang';

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
      if (typeof a === 'number') res.writeHead(a).end();
      else if (a !== 'hang') res.writeHead(a.status, { 'Retry-After': a.retryAfter }).end();
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

let redis: RedisServer;
let redisInbox: InboxHarness;
let client: Redis;
const managed: ManagedEndpoint[] = [];
const running: Running[] = [];
const targets: Target[] = [];

beforeAll(async () => {
  redis = await startRedis();
  redisInbox = await startInboxHarness({ REDIS_URL: `redis://${redis.address}` });
  client = new Redis(`redis://${redis.address}`);
});
afterEach(async () => {
  // targets first: a forwarder's close waits for its deliveries under way, which a closed target ends
  for (const t of targets.splice(0)) await t.close();
  for (const r of running.splice(0)) await r.close();
});
afterAll(async () => {
  client.disconnect();
  await redisInbox.close();
  await redis.stop();
});

const FORWARDER_ENV = {
  INBOX_HOST: '127.0.0.1',
  INBOX_EGRESS_ALLOW_PRIVATE: 'true',
  INBOX_WORKER_CLAIM_IDLE: '300ms',
  INBOX_WORKER_POLL_INTERVAL: '100ms',
  // the breaker's own tests set it: elsewhere a target failing on purpose must not open its circuit
  INBOX_WORKER_BREAKER_FAILURES: '1000',
};

/** Where captures are sent and read, where the forwarder's metrics are, and how to stop it. */
interface Forwarding {
  inbox: InboxHarness;
  metricsUrl: string;
  forwarder: Running;
}

/**
 * Redis: the shared inbox plus a worker process of its own (`name` its consumer). Memory: a new inbox on the
 * memory store, which forwards in its own process (local mode). `env` goes to whichever forwards.
 */
async function startForwarding(
  kind: StoreKind,
  name: string,
  env: Record<string, string> = {},
  deps: { random?: () => number } = {},
): Promise<Forwarding> {
  if (kind === 'memory') {
    const inbox = await startInboxHarness({ ...FORWARDER_ENV, ...env }, deps);
    running.push(inbox);
    return { inbox, metricsUrl: `${inbox.url}/metrics`, forwarder: inbox };
  }
  const worker = await startWorker(
    loadSettings({
      REDIS_URL: `redis://${redis.address}`,
      INBOX_WORKER_NAME: name,
      INBOX_WORKER_PORT: '0',
      ...FORWARDER_ENV,
      ...env,
    }),
    { log: quietLog, ...deps },
  );
  running.push(worker);
  return { inbox: redisInbox, metricsUrl: `http://127.0.0.1:${worker.port}/metrics`, forwarder: worker };
}

async function addEndpoint(h: InboxHarness, name: string, forward: ForwardTarget[]): Promise<string> {
  const id = `fwd-${name}-0123456789abcdef`;
  // each store runs the same tests: an id comes back with another target
  managed.splice(0, managed.length, ...managed.filter((e) => e.id !== id));
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

async function addTarget(answer: Answer): Promise<Target> {
  const t = await startTarget(answer);
  targets.push(t);
  return t;
}

async function capture(h: InboxHarness, id: string, path = '', body = '{"n":1}'): Promise<string> {
  const r = await h.send('POST', `/api/hook/${id}${path}`, {
    rawHeaders: ['Content-Type', 'application/json'],
    body,
  });
  return (r.json as { requestId: string }).requestId;
}

async function forwarding(h: InboxHarness, id: string, requestId: string): Promise<ForwardAttempt[]> {
  const r = await h.api('GET', `/api/endpoints/${id}/requests/${requestId}`, { token: ADMIN_TOKEN });
  return (r.json as { forwarding: ForwardAttempt[] }).forwarding;
}

/** A value of the forwarder's `/metrics` (the inbox's in local mode, the worker's with Redis). */
async function metric(f: Forwarding, name: string, labels: Record<string, string> = {}): Promise<number> {
  const text = await (await fetch(f.metricsUrl)).text();
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    const m = /^(\w+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = (m[2] ?? '').split(',');
    if (wanted.every((l) => have.includes(l))) return Number(m[3]);
  }
  throw new Error(`no ${name} ${wanted.join(',')} in ${f.metricsUrl}`);
}

interface ListedDeadLetter {
  id: string;
  requestId: string;
  target: string;
  attempts: number;
  last: string;
  at: string;
}

async function deadLetters(h: InboxHarness, id: string): Promise<ListedDeadLetter[]> {
  const r = await h.api('GET', `/api/endpoints/${id}/dead-letters`, { token: ADMIN_TOKEN });
  return (r.json as { deadLetters: ListedDeadLetter[] }).deadLetters;
}

async function circuits(h: InboxHarness, id: string): Promise<Array<{ state: string; failures: number }>> {
  const r = await h.api('GET', `/api/endpoints/${id}/circuits`, { token: ADMIN_TOKEN });
  return (r.json as { circuits: Array<{ state: string; failures: number }> }).circuits;
}

/** A target that holds every request until `answerAll` (then answers 200 at once), counting those it holds. */
async function addHeldTarget() {
  let held: ServerResponse[] = [];
  let answering = false;
  let received = 0;
  let maxActive = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      received += 1;
      if (answering) return void res.writeHead(200).end();
      held.push(res);
      maxActive = Math.max(maxActive, held.length);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const t = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get received() {
      return received;
    },
    active: () => held.length,
    maxActive: () => maxActive,
    answerAll() {
      answering = true;
      for (const res of held.splice(0)) res.writeHead(200).end();
    },
    close: () =>
      new Promise<void>((resolve) => {
        held = [];
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  targets.push({ url: t.url, received: [], close: t.close });
  return t;
}

const isSettled = (attempts: ForwardAttempt[]): boolean => attempts.some((a) => a.outcome !== 'retrying');
const pendingCount = async (id: string): Promise<number> =>
  ((await client.xpending(`inbox:ep:{${id}}:req`, 'forwarders')) as [number])[0];
/** A port nothing listens on: a target's, closed. */
async function deadPortUrl(): Promise<string> {
  const t = await startTarget(() => 200);
  await t.close();
  return t.url;
}

describe.each(STORE_KINDS)('forwarding (%s store)', (kind) => {
  // the other store's endpoints, synced here, would be forwarded to its (closed) targets
  beforeAll(() => void managed.splice(0));

  it('sends the exact bytes, method, raw path and query, and headers in order, case and duplicates', async () => {
    const t = await addTarget(() => 202);
    const { inbox: h } = await startForwarding(kind, 'w-exact');
    const id = await addEndpoint(h, 'github', [forwardTarget(`${t.url}/hooks`)]);
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
    // straight after the sync: forwarded from the sync on, not from when the forwarder next looks
    const r = await h.send('PUT', `/api/hook/${id}/gh/events?x=1&y=%2F&x=2`, { rawHeaders: sent, body });
    const requestId = (r.json as { requestId: string }).requestId;

    await waitUntil(async () => isSettled(await forwarding(h, id, requestId)));
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
    expect(await forwarding(h, id, requestId)).toEqual([
      {
        target: `${t.url}/hooks`,
        attempt: 1,
        status: 202,
        at: expect.any(String) as unknown,
        outcome: 'delivered',
      },
    ]);
  });

  it('sends to exactly the target URL (plus the query) with pathMode exact', async () => {
    const t = await addTarget(() => 200);
    const { inbox: h } = await startForwarding(kind, 'w-exact-path');
    const id = await addEndpoint(h, 'exact', [forwardTarget(`${t.url}/in`, { pathMode: 'exact' })]);
    await capture(h, id, '/a/b?q=1');
    await waitUntil(() => t.received.length === 1);
    expect(t.received[0]?.url).toBe('/in?q=1');
  });

  it('retries a failing target and records every attempt: 500, 500, then 200 is delivered once', async () => {
    const t = await addTarget((n) => (n <= 2 ? 500 : 200));
    const f = await startForwarding(kind, 'w-retry');
    const h = f.inbox;
    const id = await addEndpoint(h, 'flaky', [forwardTarget(t.url)]);
    const requestId = await capture(h, id, '/x');
    await waitUntil(async () => isSettled(await forwarding(h, id, requestId)));
    const attempts = await forwarding(h, id, requestId);
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
    await waitUntil(async () => (await metric(f, 'portcullis_inbox_forward_pending')) === 0);
    expect(t.received).toHaveLength(3);
    expect(await metric(f, 'portcullis_inbox_forward_retries_total')).toBe(2);
    expect(await metric(f, 'portcullis_inbox_forward_deliveries_total', { outcome: 'retrying' })).toBe(2);
    expect(await metric(f, 'portcullis_inbox_forward_deliveries_total', { outcome: 'delivered' })).toBe(1);
  });

  it('dead-letters a capture once its target has used up maxAttempts', async () => {
    const t = await addTarget(() => 503);
    const f = await startForwarding(kind, 'w-dead');
    const h = f.inbox;
    const id = await addEndpoint(h, 'down', [forwardTarget(t.url, { maxAttempts: 3 })]);
    const letters = await metric(f, 'portcullis_inbox_forward_dead_letters');
    const requestId = await capture(h, id);
    await waitUntil(async () => isSettled(await forwarding(h, id, requestId)));
    const attempts = await forwarding(h, id, requestId);
    expect(attempts.map((a) => [a.attempt, a.status, a.outcome])).toEqual([
      [1, 503, 'retrying'],
      [2, 503, 'retrying'],
      [3, 503, 'dead'],
    ]);
    expect(attempts[2]?.nextAttemptAt).toBeUndefined();
    await waitUntil(async () => (await metric(f, 'portcullis_inbox_forward_pending')) === 0);
    expect(await metric(f, 'portcullis_inbox_forward_dead_letters')).toBe(letters + 1);
    expect(await metric(f, 'portcullis_inbox_forward_deliveries_total', { outcome: 'dead' })).toBe(1);
    if (kind === 'memory') return;
    const stored = await client.xrange(`inbox:ep:{${id}}:dlq`, '-', '+');
    const mine = stored.map(([, fields]) => fields).find((x) => x.includes(requestId) && x.includes(id));
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
  });

  it('backs off between attempts on a port nothing listens on, then dead-letters', async () => {
    const url = await deadPortUrl();
    // the jitter pinned at half the ceiling: each wait is then known exactly
    const { inbox: h } = await startForwarding(kind, 'w-dead-port', {}, { random: () => 0.5 });
    const backoff = { initialDelaySeconds: 0.05, maxDelaySeconds: 0.08, maxAttempts: 4 };
    const id = await addEndpoint(h, 'dead-port', [forwardTarget(url, backoff)]);
    const requestId = await capture(h, id, '/p');
    await waitUntil(async () => isSettled(await forwarding(h, id, requestId)));
    const attempts = await forwarding(h, id, requestId);
    expect(attempts.map((a) => [a.attempt, a.error, a.outcome])).toEqual([
      [1, 'connection failed (ECONNREFUSED)', 'retrying'],
      [2, 'connection failed (ECONNREFUSED)', 'retrying'],
      [3, 'connection failed (ECONNREFUSED)', 'retrying'],
      [4, 'connection failed (ECONNREFUSED)', 'dead'],
    ]);
    // each wait is the jitter times min(maxDelay, initialDelay·2^(attempt−1)): 50, 80, 80 ms halved
    const waits = attempts.slice(0, -1).map((a) => Date.parse(a.nextAttemptAt ?? '') - Date.parse(a.at));
    expect(waits).toEqual([25, 40, 40]);
    // and the next attempt kept to it
    for (const [i, a] of attempts.slice(1).entries()) {
      expect(Date.parse(a.at)).toBeGreaterThanOrEqual(Date.parse(attempts[i]?.nextAttemptAt ?? ''));
    }
  });

  it("waits for the target's Retry-After, capped at maxDelaySeconds", async () => {
    const answers = [
      { status: 429, retryAfter: '1' },
      { status: 503, retryAfter: '3600' },
    ];
    const t = await addTarget((n) => answers[n - 1] ?? 200);
    const { inbox: h } = await startForwarding(kind, 'w-retry-after');
    const id = await addEndpoint(h, 'retry-after', [forwardTarget(t.url, { maxDelaySeconds: 1.5 })]);
    const requestId = await capture(h, id);
    await waitUntil(async () => isSettled(await forwarding(h, id, requestId)), 10_000);
    const attempts = await forwarding(h, id, requestId);
    expect(attempts.map((a) => [a.attempt, a.status, a.outcome])).toEqual([
      [1, 429, 'retrying'],
      [2, 503, 'retrying'],
      [3, 200, 'delivered'],
    ]);
    // initialDelaySeconds 0: without Retry-After the retries would be immediate
    const waits = attempts.slice(0, 2).map((a) => Date.parse(a.nextAttemptAt ?? '') - Date.parse(a.at));
    expect(waits).toEqual([1000, 1500]);
  });

  it('has more than ten deliveries in flight without a listener-leak warning', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error): void => void warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      const t = await addTarget(() => 'hang');
      const f = await startForwarding(kind, 'w-parallel', { INBOX_WORKER_MAX_IN_FLIGHT: '12' });
      const id = await addEndpoint(f.inbox, 'parallel', [forwardTarget(t.url)]);
      await Promise.all(Array.from({ length: 14 }, (_, i) => capture(f.inbox, id, `/${i}`)));
      await waitUntil(() => t.received.length === 12);
      expect(await metric(f, 'portcullis_inbox_forward_in_flight')).toBe(12);
      expect(warnings).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('refuses a loopback target unless private egress is allowed, without retrying', async () => {
    const t = await addTarget(() => 200);
    const { inbox: h } = await startForwarding(kind, 'w-egress', { INBOX_EGRESS_ALLOW_PRIVATE: 'false' });
    const id = await addEndpoint(h, 'ssrf', [forwardTarget(t.url)]);
    const requestId = await capture(h, id);
    await waitUntil(async () => isSettled(await forwarding(h, id, requestId)));
    expect(await forwarding(h, id, requestId)).toEqual([
      {
        target: t.url,
        attempt: 1,
        error: 'egress refused: 127.0.0.1 does not resolve to a public address',
        at: expect.any(String) as unknown,
        outcome: 'dead',
      },
    ]);
    expect(t.received).toEqual([]);
  });
  // issue 34: a raw `/api/hook/<id>/../../admin` was sent on as `/target/../../admin`
  it('captures dot-dot nested paths exactly, sends none below an appending target, and the exact target still gets them', async () => {
    const appending = await addTarget(() => 200);
    const exact = await addTarget(() => 200);
    const { inbox: h } = await startForwarding(kind, 'w-dotdot');
    const id = await addEndpoint(h, 'dotdot', [
      forwardTarget(`${appending.url}/target`),
      forwardTarget(`${exact.url}/in`, { pathMode: 'exact' }),
    ]);
    const nested = ['/../../admin', '/%2e%2e/%2E%2e/admin', '/..;/..;/admin'];
    const requestIds: string[] = [];
    for (const path of nested) {
      const r = await h.send('POST', `/api/hook/${id}${path}?drop=all`, { body: 'x' });
      expect([path, r.status]).toEqual([path, 200]);
      const requestId = (r.json as { requestId: string }).requestId;
      const stored = await h.api('GET', `/api/endpoints/${id}/requests/${requestId}`, { token: ADMIN_TOKEN });
      expect(stored.json).toMatchObject({ nestedPath: path, url: `/api/hook/${id}${path}?drop=all` });
      requestIds.push(requestId);
    }
    for (const requestId of requestIds) {
      await waitUntil(async () => (await forwarding(h, id, requestId)).length === 2);
      expect(await forwarding(h, id, requestId)).toEqual([
        {
          target: `${appending.url}/target`,
          attempt: 1,
          error:
            "not sent: the nested path has a '..' segment (or %2e%2e, or ..;), which could leave the target's path",
          at: expect.any(String) as unknown,
          outcome: 'dead',
        },
        {
          target: `${exact.url}/in`,
          attempt: 1,
          status: 200,
          at: expect.any(String) as unknown,
          outcome: 'delivered',
        },
      ]);
    }
    expect(appending.received).toEqual([]);
    expect(exact.received.map((r) => r.url)).toEqual(nested.map(() => '/in?drop=all'));
    expect((await deadLetters(h, id)).map((d) => d.requestId).sort()).toEqual([...requestIds].sort());
  });

  // issue 34: node:http threw on it; the worker logged `forwarding interrupted` every ~3 s, forever, and the
  // capture's other targets were never tried
  it('records a capture node:http cannot send as dead at each target, at once, and acknowledges it', async () => {
    const first = await addTarget(() => 200);
    const second = await addTarget(() => 200);
    const { inbox: h } = await startForwarding(kind, 'w-unsendable');
    const id = await addEndpoint(h, 'unsendable', [
      forwardTarget(first.url),
      forwardTarget(second.url, { pathMode: 'exact' }),
    ]);
    const request = {
      method: 'POST',
      url: `http://inbox.example/api/hook/${id}/x`,
      httpVersion: 'HTTP/1.1',
      headers: [{ name: 'X-A', value: '€' }],
      postData: { mimeType: 'text/plain', text: 'x' },
    };
    const imported = await h.api('POST', `/api/endpoints/${id}/requests/import`, {
      token: ADMIN_TOKEN,
      body: { log: { entries: [{ request }] } },
    });
    expect(imported.status).toBe(201);
    const [requestId] = (imported.json as { requestIds: string[] }).requestIds;
    await waitUntil(async () => (await forwarding(h, id, requestId ?? '')).length === 2);
    const error =
      'not sent: header "X-A" cannot be sent: a control character or one beyond Latin-1 in its value';
    expect(await forwarding(h, id, requestId ?? '')).toEqual(
      [first.url, second.url].map((target) => ({
        target,
        attempt: 1,
        error,
        at: expect.any(String) as unknown,
        outcome: 'dead',
      })),
    );
    expect([first.received, second.received]).toEqual([[], []]);
    expect((await deadLetters(h, id)).map((d) => [d.target, d.last])).toEqual(
      expect.arrayContaining([
        [first.url, error],
        [second.url, error],
      ]),
    );
    if (kind === 'redis') await waitUntil(async () => (await pendingCount(id)) === 0);
  });

  it('lists the dead letters and redrives one, then all, each once, with a fresh attempt count', async () => {
    let up = false;
    const t = await addTarget(() => (up ? 200 : 503));
    const f = await startForwarding(kind, 'w-redrive');
    const h = f.inbox;
    const id = await addEndpoint(h, 'redrive', [forwardTarget(t.url, { maxAttempts: 2 })]);
    const ids = [await capture(h, id, '/1'), await capture(h, id, '/2'), await capture(h, id, '/3')];
    for (const r of ids) await waitUntil(async () => isSettled(await forwarding(h, id, r)));
    await waitUntil(async () => (await metric(f, 'portcullis_inbox_forward_pending')) === 0);
    const listed = await deadLetters(h, id);
    expect(listed.map((l) => [l.requestId, l.target, l.attempts, l.last])).toEqual(
      [...ids].reverse().map((r) => [r, t.url, 2, '503']),
    );
    // paged, newest first
    const page = await h.api('GET', `/api/endpoints/${id}/dead-letters?limit=2`, { token: ADMIN_TOKEN });
    const { nextBefore } = page.json as { nextBefore: string };
    expect(nextBefore).toBe(listed[1]?.id);
    const rest = await h.api('GET', `/api/endpoints/${id}/dead-letters?before=${nextBefore}`, {
      token: ADMIN_TOKEN,
    });
    expect(rest.json).toEqual({ deadLetters: [listed[2]], nextBefore: null });
    // who may read the endpoint may see and redrive its dead letters: a managed one, the admin only
    expect((await h.api('GET', `/api/endpoints/${id}/dead-letters`)).status).toBe(401);
    expect((await h.api('POST', `/api/endpoints/${id}/dead-letters/redrive`)).status).toBe(401);

    up = true;
    const oldest = listed[2];
    if (!oldest) throw new Error('no dead letter');
    const redriveOne = () =>
      h.api('POST', `/api/endpoints/${id}/dead-letters/${oldest.id}/redrive`, { token: ADMIN_TOKEN });
    // two callers at once: one redrives, the other finds nothing left to redrive
    const answers = await Promise.all([redriveOne(), redriveOne()]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 404]);
    await waitUntil(async () => (await forwarding(h, id, oldest.requestId)).at(-1)?.outcome === 'delivered');
    expect((await forwarding(h, id, oldest.requestId)).map((a) => [a.attempt, a.status, a.outcome])).toEqual([
      [1, 503, 'retrying'],
      [2, 503, 'dead'],
      [0, undefined, 'redriven'],
      [1, 200, 'delivered'],
    ]);
    expect((await deadLetters(h, id)).map((l) => l.requestId)).toEqual([ids[2], ids[1]]);

    const all = () => h.api('POST', `/api/endpoints/${id}/dead-letters/redrive`, { token: ADMIN_TOKEN });
    const counts = (await Promise.all([all(), all()])).map((a) => a.json as Record<string, number>);
    expect(counts.reduce((n, c) => n + (c.redriven ?? 0), 0)).toBe(2);
    expect(counts.reduce((n, c) => n + (c.busy ?? 0) + (c.gone ?? 0), 0)).toBe(0);
    for (const r of ids)
      await waitUntil(async () => (await forwarding(h, id, r)).at(-1)?.outcome === 'delivered');
    expect(await deadLetters(h, id)).toEqual([]);
    // each capture: two failures, then delivered exactly once
    expect(t.received.map((r) => r.url).sort()).toEqual([
      '/1',
      '/1',
      '/1',
      '/2',
      '/2',
      '/2',
      '/3',
      '/3',
      '/3',
    ]);
    await waitUntil(async () => (await metric(f, 'portcullis_inbox_forward_pending')) === 0);
    if (kind === 'memory') expect(await metric(f, 'portcullis_inbox_forward_dead_letters')).toBe(0);
    // with Redis the worker counts every managed endpoint's letters, and claims earlier tests' captures
    else expect(await client.xlen(`inbox:ep:{${id}}:dlq`)).toBe(0);
  });

  it('never has more than maxConcurrent requests at a target, and does not hold up the others', async () => {
    const slow = await addHeldTarget();
    const quick = await addTarget(() => 200);
    const { inbox: h } = await startForwarding(kind, 'w-concurrency');
    const limited = await addEndpoint(h, 'limited', [forwardTarget(slow.url, { maxConcurrent: 2 })]);
    const other = await addEndpoint(h, 'other', [forwardTarget(quick.url)]);
    const sent = await Promise.all(Array.from({ length: 6 }, (_, i) => capture(h, limited, `/${i}`)));
    await waitUntil(() => slow.active() === 2);
    // the limited target's deliveries wait for a slot; another target's do not wait for them
    await Promise.all([1, 2, 3].map((i) => capture(h, other, `/${i}`)));
    await waitUntil(() => quick.received.length === 3);
    expect(slow.received).toBe(2);
    slow.answerAll();
    for (const r of sent)
      await waitUntil(async () => (await forwarding(h, limited, r)).at(-1)?.outcome === 'delivered');
    expect(slow.received).toBe(6);
    expect(slow.maxActive()).toBe(2);
  });

  it('opens the circuit of a failing target, sends nothing while open, probes, and closes on recovery', async () => {
    let up = false;
    const t = await addTarget(() => (up ? 200 : 503));
    const f = await startForwarding(kind, 'w-breaker', {
      INBOX_WORKER_BREAKER_FAILURES: '3',
      INBOX_WORKER_BREAKER_COOLDOWN: '1s',
      INBOX_WORKER_BREAKER_MAX_COOLDOWN: '2s',
    });
    const h = f.inbox;
    // one request at a time: the failures come in order
    const id = await addEndpoint(h, 'breaker', [forwardTarget(t.url, { maxConcurrent: 1, maxAttempts: 4 })]);
    const ids = await Promise.all([1, 2, 3].map((i) => capture(h, id, `/${i}`)));
    const opened = await waitFor(
      () => circuits(h, id),
      (c) => c[0]?.state === 'open',
    );
    expect(opened).toEqual([
      // the worker's name; in local mode the host's (INBOX_WORKER_NAME's default)
      {
        worker: kind === 'redis' ? 'w-breaker' : hostname(),
        target: t.url,
        state: 'open',
        failures: 3,
        openUntil: expect.any(String) as unknown,
      },
    ]);
    // open: the captures wait, nothing reaches the target
    expect(t.received).toHaveLength(3);
    expect(await metric(f, 'portcullis_inbox_forward_circuit_state', { target: t.url })).toBe(2);
    // one probe after the cool-down; it fails, and the circuit opens again (for twice as long)
    await waitFor(
      () => circuits(h, id),
      (c) => c[0]?.state === 'open' && c[0].failures === 4,
    );
    expect(t.received).toHaveLength(4);
    up = true;
    for (const r of ids)
      await waitUntil(async () => (await forwarding(h, id, r)).at(-1)?.outcome === 'delivered', 10_000);
    // the waits were not attempts: four failures over three captures, then one delivery each
    expect(t.received).toHaveLength(7);
    const attempts = await Promise.all(ids.map((r) => forwarding(h, id, r)));
    expect(attempts.flat().filter((a) => a.outcome === 'retrying')).toHaveLength(4);
    expect(attempts.flat().filter((a) => a.outcome === 'dead')).toEqual([]);
    await waitUntil(async () => (await circuits(h, id)).length === 0);
    expect(await (await fetch(f.metricsUrl)).text()).not.toContain('portcullis_inbox_forward_circuit_state{');
  });
});

describe('forwarding worker (redis)', () => {
  it('hands a capture whose worker stopped before its retry to another one: nothing is lost', async () => {
    const h = redisInbox;
    const t = await addTarget((n) => (n === 1 ? 'hang' : 200));
    const id = await addEndpoint(h, 'crash', [forwardTarget(t.url, { timeoutSeconds: 1 })]);
    const first = await startForwarding('redis', 'w-first');
    const requestId = await capture(h, id, '/crash');
    await waitUntil(() => t.received.length === 1);
    // the delivery under way runs to its timeout and is recorded; the retry is left to another worker
    await first.forwarder.close();
    expect((await forwarding(h, id, requestId)).map((a) => [a.attempt, a.outcome])).toEqual([
      [1, 'retrying'],
    ]);
    expect(await pendingCount(id)).toBe(1);

    await startForwarding('redis', 'w-second');
    await waitUntil(async () => isSettled(await forwarding(h, id, requestId)));
    expect((await forwarding(h, id, requestId)).map((a) => [a.attempt, a.status, a.outcome])).toEqual([
      [1, undefined, 'retrying'],
      [2, 200, 'delivered'],
    ]);
    expect(t.received.map((r) => r.url)).toEqual(['/crash', '/crash']);
    await waitUntil(async () => (await pendingCount(id)) === 0);
  });

  it('reads a target written before maxConcurrent existed with the default limit', async () => {
    const id = await addEndpoint(redisInbox, 'old-target', [forwardTarget('http://127.0.0.1:9/')]);
    const { maxConcurrent: _, ...old } = forwardTarget('http://127.0.0.1:9/');
    await client.hset(`inbox:ep:{${id}}:tgt`, '0', JSON.stringify(old));
    const read = await redisInbox.app.store.getEndpoint(id);
    expect(read?.forward).toEqual([{ ...old, maxConcurrent: 32 }]);
  });

  it('refuses to start without Redis', async () => {
    await expect(startWorker(loadSettings({}), { log: quietLog })).rejects.toThrow(
      /REDIS_URL: the forwarding worker needs Redis/,
    );
  });
});

describe('who forwards: the inbox process on the memory store, the worker with Redis', () => {
  const startedLines = (lines: Array<Record<string, unknown>>) =>
    lines
      .filter(
        (l) => l['@message'] === 'inbox listening' || String(l['@message']).includes('forwarding started'),
      )
      .map((l) => [l['@message'], l.store, l.forwardedBy, l.egressAllowPrivate]);

  it('says so at start-up, and serves the forwarding metrics and readiness check only in local mode', async () => {
    const memory = createCollectingLog();
    let clock = Date.now();
    const local = await startInboxHarness(
      { INBOX_EGRESS_ALLOW_PRIVATE: 'true', INBOX_WORKER_POLL_INTERVAL: '5s' },
      { log: memory.log, now: () => clock },
    );
    running.push(local);
    expect(startedLines(memory.lines)).toEqual([
      ['inbox listening', 'memory', 'this process', undefined],
      ['local forwarding started (memory store)', undefined, undefined, true],
    ]);
    expect(await (await fetch(`${local.url}/metrics`)).text()).toContain(
      'portcullis_inbox_forward_in_flight{component="inbox"} 0',
    );
    expect(await (await fetch(`${local.url}/readyz`)).json()).toEqual({ status: 'ready' });
    // the clock moved past three poll intervals since the loop last went round (it waits 5s for captures)
    clock += 16_000;
    expect(await (await fetch(`${local.url}/readyz`)).json()).toEqual({
      error: 'not ready: local forwarder',
      code: 'NOT_READY',
    });

    const withRedis = createCollectingLog();
    const remote = await startInboxHarness({ REDIS_URL: `redis://${redis.address}` }, { log: withRedis.log });
    running.push(remote);
    expect(startedLines(withRedis.lines)).toEqual([['inbox listening', 'redis', 'inbox-worker', undefined]]);
    expect(await (await fetch(`${remote.url}/metrics`)).text()).not.toContain('portcullis_inbox_forward_');
  });
});
