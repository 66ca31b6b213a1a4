import { hashToken } from '@portcullis/kit';
import { startRedis, type RedisServer } from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SHARES_PER_ENDPOINT } from '../src/api/share-routes.js';
import {
  ADMIN_TOKEN,
  describeEachStore,
  LIVE_RECHECK_WAIT_MS,
  startInboxHarness,
  waitUntil,
  type InboxHarness,
  type InboxUnderTest,
  type RawResponse,
} from './harness.js';
import { openSse } from './sse-client.js';

interface CreatedShare {
  id: string;
  token: string;
  url: string;
  createdAt: string;
}

/**
 * Every route under `/api/endpoints/:id` a share token may call: reading captures. Any other route there,
 * one added later included, must be listed in `SHARE_REFUSED` (it answers a share token 403) or the table
 * test fails: the server, not the page, keeps a share link read-only.
 */
const SHARE_READS = [
  'GET /api/endpoints/:id',
  'GET /api/endpoints/:id/requests',
  'GET /api/endpoints/:id/requests/:requestId',
  'GET /api/endpoints/:id/requests/:requestId/body',
  'GET /api/endpoints/:id/requests.har',
  'GET /api/endpoints/:id/requests.ndjson',
  'GET /api/endpoints/:id/stream',
];
/** The routes a share token is refused, each with the body a real call would carry. */
const SHARE_REFUSED: Record<string, unknown> = {
  'PATCH /api/endpoints/:id': { name: 'taken over' },
  'PUT /api/endpoints/:id/response': { status: 500, body: 'taken over' },
  'DELETE /api/endpoints/:id/response': undefined,
  'PUT /api/endpoints/:id/retention': { maxRequests: 1 },
  'DELETE /api/endpoints/:id': undefined,
  'POST /api/endpoints/:id/claim': undefined,
  'POST /api/endpoints/:id/requests/:requestId/replay': { to: 'http://127.0.0.1:9/' },
  'POST /api/endpoints/:id/shares': undefined,
  'GET /api/endpoints/:id/shares': undefined,
  'DELETE /api/endpoints/:id/shares/:shareId': undefined,
  'PUT /api/endpoints/:id/signature': { provider: 'github', secret: 'taken over' },
  'DELETE /api/endpoints/:id/signature': undefined,
  'POST /api/endpoints/:id/requests/import': { log: { version: '1.2', entries: [] } },
  // the forwarding side is the owner's: its targets' health and what they refused
  'GET /api/endpoints/:id/dead-letters': undefined,
  'POST /api/endpoints/:id/dead-letters/:dlqId/redrive': undefined,
  'POST /api/endpoints/:id/dead-letters/redrive': undefined,
  'GET /api/endpoints/:id/circuits': undefined,
};

describeEachStore('share links', (get, variant) => {
  let h: InboxUnderTest;
  beforeAll(() => {
    h = get();
  });
  const share = async (id: string, token: string): Promise<CreatedShare> => {
    const r = await h.api('POST', `/api/endpoints/${id}/shares`, { token });
    expect(r.status).toBe(201);
    return r.json as CreatedShare;
  };
  const capture = async (id: string, body = '{"a":1}'): Promise<string> =>
    ((await h.send('POST', `/api/hook/${id}/x`, { body })).json as { requestId: string }).requestId;
  const expectReadOnly = (r: RawResponse): void => {
    expect(r.status).toBe(403);
    expect(r.json).toEqual({
      error: "a share link only reads captures: this needs the endpoint's owner",
      code: 'SHARE_READ_ONLY',
    });
  };

  // the route table is the app object's: only an app in this process shows it
  if (!variant.workers) {
    it('lists every route under /api/endpoints/:id as readable by a share token or refused to it', () => {
      const routes = (h.app?.routes ?? []).filter((r) => /^[A-Z]+ \/api\/endpoints\/:id(\/|$)/.test(r));
      const classified = new Set([...SHARE_READS, ...Object.keys(SHARE_REFUSED)]);
      // fastify answers HEAD for every GET route: the GET's entry covers it
      const unlisted = routes.filter((r) => !r.startsWith('HEAD ') && !classified.has(r));
      expect(unlisted).toEqual([]);
      expect([...classified].filter((r) => !routes.includes(r))).toEqual([]);
    });
  }

  it('refuses a share token on every route it may not call, with 403 SHARE_READ_ONLY, changing nothing', async () => {
    const ep = await h.createEndpoint('mine');
    const requestId = await capture(ep.id);
    const s = await share(ep.id, ep.token);
    for (const [route, body] of Object.entries(SHARE_REFUSED)) {
      const [method = '', pattern = ''] = route.split(' ');
      const path = pattern
        .replace(':id', ep.id)
        .replace(':requestId', requestId)
        .replace(':shareId', s.id)
        .replace(':dlqId', '1-0');
      const r = await h.api(method, path, { token: s.token, ...(body === undefined ? {} : { body }) });
      expect({ route, status: r.status }).toEqual({ route, status: 403 });
      expectReadOnly(r);
    }
    const after = await h.api('GET', `/api/endpoints/${ep.id}`, { token: ep.token });
    expect(after.json).toMatchObject({ name: 'mine', kind: 'anonymous', requestCount: 1 });
    const shares = await h.api('GET', `/api/endpoints/${ep.id}/shares`, { token: ep.token });
    expect(shares.json).toEqual({ shares: [{ id: s.id, createdAt: s.createdAt }] });
  });

  it('reads the endpoint, its captures, a body and the live stream with a share token', async () => {
    const ep = await h.createEndpoint('shared');
    const requestId = await capture(ep.id, '{"shared":true}');
    const s = await share(ep.id, ep.token);
    // INBOX_PUBLIC_URL's default; the token in the fragment, which no browser sends anywhere
    expect(s.url).toBe(`http://localhost:8089/inspect/${ep.id}#share=${s.token}`);
    const view = await h.api('GET', `/api/endpoints/${ep.id}`, { token: s.token });
    expect(view.json).toMatchObject({ id: ep.id, name: 'shared', requestCount: 1 });
    const list = await h.api('GET', `/api/endpoints/${ep.id}/requests`, { token: s.token });
    expect((list.json as { requests: Array<{ id: string }> }).requests.map((r) => r.id)).toEqual([requestId]);
    const detail = await h.api('GET', `/api/endpoints/${ep.id}/requests/${requestId}`, { token: s.token });
    expect(detail.json).toMatchObject({ id: requestId, body: { kind: 'text', text: '{"shared":true}' } });
    const body = await h.send('GET', `/api/endpoints/${ep.id}/requests/${requestId}/body`, {
      token: s.token,
    });
    expect(body.body.toString()).toBe('{"shared":true}');
    const stream = await openSse(`${h.url}/api/endpoints/${ep.id}/stream`, { token: s.token });
    expect(stream.status).toBe(200);
    await stream.waitFor((events) => events.some((e) => e.event === 'ready'));
    const live = await capture(ep.id);
    await stream.waitFor(() => stream.requestIds().includes(live));
    stream.close();
  });

  it('opens only the endpoint it was made for', async () => {
    const a = await h.createEndpoint();
    const b = await h.createEndpoint();
    const s = await share(a.id, a.token);
    const r = await h.api('GET', `/api/endpoints/${b.id}/requests`, { token: s.token });
    expect(r.status).toBe(401);
  });

  it('keeps only the SHA-256 of a share token, and lists shares without tokens', async () => {
    const ep = await h.createEndpoint();
    const s = await share(ep.id, ep.token);
    expect(await h.store.listShares(ep.id)).toEqual([
      { id: s.id, tokenSha256: hashToken(s.token), createdAt: s.createdAt },
    ]);
    const listed = await h.api('GET', `/api/endpoints/${ep.id}/shares`, { token: ep.token });
    expect(JSON.stringify(listed.json)).not.toContain(s.token);
  });

  it(`allows ${MAX_SHARES_PER_ENDPOINT} share links per endpoint; a revoked one makes room`, async () => {
    const ep = await h.createEndpoint();
    const made: CreatedShare[] = [];
    for (let i = 0; i < MAX_SHARES_PER_ENDPOINT; i++) made.push(await share(ep.id, ep.token));
    const over = await h.api('POST', `/api/endpoints/${ep.id}/shares`, { token: ep.token });
    expect(over.status).toBe(409);
    expect(over.json).toEqual({
      error: `an endpoint has at most ${MAX_SHARES_PER_ENDPOINT} share links: revoke one first`,
      code: 'SHARE_LIMIT_REACHED',
    });
    const first = made[0];
    if (!first) throw new Error('no share made');
    const revoked = await h.api('DELETE', `/api/endpoints/${ep.id}/shares/${first.id}`, { token: ep.token });
    expect(revoked.status).toBe(204);
    await share(ep.id, ep.token);
  });

  it('stops a revoked share token at once: reads answer 401, an open live stream ends', async () => {
    const ep = await h.createEndpoint();
    const s = await share(ep.id, ep.token);
    const kept = await share(ep.id, ep.token);
    const stream = await openSse(`${h.url}/api/endpoints/${ep.id}/stream`, { token: s.token });
    const other = await openSse(`${h.url}/api/endpoints/${ep.id}/stream`, { token: kept.token });
    await stream.waitFor((events) => events.some((e) => e.event === 'ready'));
    await other.waitFor((events) => events.some((e) => e.event === 'ready'));
    const r = await h.api('DELETE', `/api/endpoints/${ep.id}/shares/${s.id}`, { token: ep.token });
    expect(r.status).toBe(204);
    // at once in the process that revoked it; another worker's stream ends at its next re-check
    await stream.waitFor((events) => events.some((e) => e.event === 'revoked'), LIVE_RECHECK_WAIT_MS);
    expect(stream.events.at(-1)).toEqual({ event: 'revoked', data: { endpointId: ep.id } });
    await waitUntil(() => stream.ended);
    expect((await h.api('GET', `/api/endpoints/${ep.id}/requests`, { token: s.token })).status).toBe(401);
    const again = await openSse(`${h.url}/api/endpoints/${ep.id}/stream`, { token: s.token });
    expect(again.status).toBe(401);
    again.close();
    // the other share's stream goes on
    const id = await capture(ep.id);
    await other.waitFor(() => other.requestIds().includes(id));
    expect(other.ended).toBe(false);
    other.close();
    const gone = await h.api('DELETE', `/api/endpoints/${ep.id}/shares/${s.id}`, { token: ep.token });
    expect(gone.status).toBe(404);
  });

  it('lets the owning account (with its session) and the admin manage share links', async () => {
    const cookie = await h.signUp(`sharer-${Date.now()}`);
    const created = await h.send('POST', '/api/endpoints', {
      headers: { cookie, 'x-inbox-csrf': '1' },
    });
    const id = (created.json as { id: string }).id;
    const r = await h.send('POST', `/api/endpoints/${id}/shares`, {
      headers: { cookie, 'x-inbox-csrf': '1' },
    });
    expect(r.status).toBe(201);
    const s = r.json as CreatedShare;
    expect((await h.api('GET', `/api/endpoints/${id}`, { token: s.token })).status).toBe(200);
    // a cookie write without the CSRF header is refused as any other
    const forged = await h.send('POST', `/api/endpoints/${id}/shares`, { headers: { cookie } });
    expect(forged.status).toBe(403);
    const byAdmin = await h.api('DELETE', `/api/endpoints/${id}/shares/${s.id}`, { token: ADMIN_TOKEN });
    expect(byAdmin.status).toBe(204);
    expect((await h.api('GET', `/api/endpoints/${id}`, { token: s.token })).status).toBe(401);
  });

  it('shares a managed endpoint through the admin token; its links open nothing while the resource is gone', async () => {
    const id = 'managed-shared-endpoint-0001';
    const resource = {
      id,
      name: 'orders',
      resource: 'shop/orders',
      retention: { maxRequests: 10, maxAgeMs: 3_600_000 },
      forward: [],
    };
    await h.store.syncManagedEndpoints([resource]);
    const s = await share(id, ADMIN_TOKEN);
    await capture(id);
    const list = await h.api('GET', `/api/endpoints/${id}/requests`, { token: s.token });
    expect((list.json as { requests: unknown[] }).requests).toHaveLength(1);
    expectReadOnly(await h.api('DELETE', `/api/endpoints/${id}/shares/${s.id}`, { token: s.token }));
    await h.store.syncManagedEndpoints([]);
    expect((await h.api('GET', `/api/endpoints/${id}/requests`, { token: s.token })).status).toBe(401);
    await h.store.syncManagedEndpoints([resource]);
    expect((await h.api('GET', `/api/endpoints/${id}/requests`, { token: s.token })).status).toBe(200);
  });

  it('takes the share links with the endpoint when it is deleted', async () => {
    const ep = await h.createEndpoint();
    const s = await share(ep.id, ep.token);
    expect((await h.api('DELETE', `/api/endpoints/${ep.id}`, { token: ep.token })).status).toBe(204);
    expect(await h.store.listShares(ep.id)).toEqual([]);
    expect((await h.api('GET', `/api/endpoints/${ep.id}`, { token: s.token })).status).toBe(401);
  });
});

describe('share revocation across inbox processes (one Redis)', () => {
  let redis: RedisServer;
  let a: InboxHarness;
  let b: InboxHarness;
  beforeAll(async () => {
    redis = await startRedis();
    a = await startInboxHarness({ REDIS_URL: `redis://${redis.address}` });
    b = await startInboxHarness({ REDIS_URL: `redis://${redis.address}` });
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await redis.stop();
  });

  it('ends a stream on another process at its next share re-check, and refuses it from then on', async () => {
    const ep = await a.createEndpoint();
    const s = (await a.api('POST', `/api/endpoints/${ep.id}/shares`, { token: ep.token }))
      .json as CreatedShare;
    const stream = await openSse(`${b.url}/api/endpoints/${ep.id}/stream`, { token: s.token });
    await stream.waitFor((events) => events.some((e) => e.event === 'ready'));
    expect(
      (await a.api('DELETE', `/api/endpoints/${ep.id}/shares/${s.id}`, { token: ep.token })).status,
    ).toBe(204);
    await stream.waitFor((events) => events.some((e) => e.event === 'revoked'));
    await waitUntil(() => stream.ended);
    expect((await b.api('GET', `/api/endpoints/${ep.id}/requests`, { token: s.token })).status).toBe(401);
  });
});
