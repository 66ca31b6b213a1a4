import { setTimeout as sleep } from 'node:timers/promises';
import { startRedis } from '@portcullis/testing';
import { describe, expect, it } from 'vitest';
import { describeEachStore, startInboxHarness, waitUntil, type InboxHarness } from './harness.js';

const SLACK = {
  status: 200,
  headers: [
    { name: 'Content-Type', value: 'text/plain; charset=utf-8' },
    { name: 'X-Answered-By', value: 'inbox' },
  ],
  body: '{{body.challenge}}',
  delayMs: 0,
};

const error = (r: { json: unknown }) => r.json as { error: string; code: string };

describeEachStore('custom responses', (get) => {
  it('answers with the status, headers and body set, the challenge filled, once the capture is stored', async () => {
    const h = get();
    const ep = await h.createEndpoint();
    const set = await h.api('PUT', `/api/endpoints/${ep.id}/response`, { token: ep.token, body: SLACK });
    expect([set.status, set.json]).toEqual([200, { response: SLACK }]);
    expect((await h.api('GET', `/api/endpoints/${ep.id}`, { token: ep.token })).json).toMatchObject({
      response: SLACK,
    });
    const r = await h.send('POST', `/api/hook/${ep.id}/slack/events`, {
      headers: { 'content-type': 'application/json' },
      body: '{"token":"t","challenge":"3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P","type":"url_verification"}',
    });
    expect(r.status).toBe(200);
    expect(r.body.toString()).toBe('3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P');
    expect(r.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(r.headers['x-answered-by']).toBe('inbox');
    // the inbox's own: the capture's id, and the body never runs as a page on the inspector's origin
    const requestId = r.headers['x-inbox-request-id'] as string;
    expect(r.headers['content-security-policy']).toBe("sandbox; default-src 'none'");
    expect(r.headers['x-content-type-options']).toBe('nosniff');
    const stored = await h.api('GET', `/api/endpoints/${ep.id}/requests/${requestId}`, { token: ep.token });
    expect(stored.json).toMatchObject({ nestedPath: '/slack/events', method: 'POST' });
  });

  it('answers any status from 200 to 599 (a 500 is still a stored capture), HEAD without a body', async () => {
    const h = get();
    const ep = await h.createEndpoint();
    const response = { status: 503, body: 'try later', headers: [{ name: 'Retry-After', value: '5' }] };
    expect(
      (await h.api('PUT', `/api/endpoints/${ep.id}/response`, { token: ep.token, body: response })).status,
    ).toBe(200);
    const r = await h.send('POST', `/api/hook/${ep.id}`, { body: 'x' });
    expect([r.status, r.body.toString(), r.headers['retry-after']]).toEqual([503, 'try later', '5']);
    expect(r.headers['content-type']).toBe('text/plain; charset=utf-8');
    const head = await h.send('HEAD', `/api/hook/${ep.id}`);
    expect([head.status, head.body.length]).toEqual([503, 0]);
    expect(await h.store.countCaptures(ep.id)).toBe(2);
    const metrics = (await h.send('GET', '/metrics')).body.toString();
    expect(metrics).not.toMatch(/portcullis_inbox_captures_total\{[^}]*outcome="unavailable"/);
  });

  it('answers {"ok":true,…} again once reset', async () => {
    const h = get();
    const ep = await h.createEndpoint();
    await h.api('PUT', `/api/endpoints/${ep.id}/response`, { token: ep.token, body: { status: 202 } });
    expect((await h.send('POST', `/api/hook/${ep.id}`)).status).toBe(202);
    expect((await h.api('DELETE', `/api/endpoints/${ep.id}/response`, { token: ep.token })).status).toBe(204);
    const resetAt = Date.now();
    expect((await h.api('GET', `/api/endpoints/${ep.id}`, { token: ep.token })).json).toMatchObject({
      response: null,
    });
    // the capture path remembers an endpoint for up to a second, in each process: one worker answering
    // the default is not yet the other doing so
    await waitUntil(async () => (await h.send('POST', `/api/hook/${ep.id}`)).status === 200);
    await sleep(Math.max(0, resetAt + 1000 - Date.now()));
    expect((await h.send('POST', `/api/hook/${ep.id}`)).json).toMatchObject({ ok: true });
  });

  it('refuses bad input with 400 naming each field; needs the token', async () => {
    const h = get();
    const ep = await h.createEndpoint();
    const put = (body: unknown, token = ep.token) =>
      h.api('PUT', `/api/endpoints/${ep.id}/response`, { token, body });
    const cases: Array<[unknown, string]> = [
      [{ status: 99 }, 'response: status: expected 200 to 599'],
      [{ status: 600 }, 'response: status: expected 200 to 599'],
      [{ status: 101 }, '1xx are interim answers'],
      [
        { headers: [{ name: 'Connection', value: 'close' }] },
        "response: headers[0].name: 'Connection' cannot be set",
      ],
      [{ headers: [{ name: 'Transfer-Encoding', value: 'chunked' }] }, "'Transfer-Encoding' cannot be set"],
      [{ headers: [{ name: 'Content-Length', value: '3' }] }, "'Content-Length' cannot be set"],
      [{ body: 'x'.repeat(64 * 1024 + 1) }, 'response: body: at most 65536 bytes'],
      [{ delayMs: 10_001 }, 'response: delayMs: at most 10000'],
      [{ body: '{{process.env}}' }, 'response: body: unknown placeholder'],
      [[], 'response: expected a mapping'],
    ];
    for (const [body, message] of cases) {
      const r = await put(body);
      expect([r.status, error(r).code], JSON.stringify(body).slice(0, 80)).toEqual([400, 'INVALID_ARGUMENT']);
      expect(error(r).error).toContain(message);
    }
    const both = await put({ status: 600, delayMs: 20_000 });
    expect(error(both).error).toBe(
      'response: status: expected 200 to 599 (1xx are interim answers that a final one must follow, not answers); response: delayMs: at most 10000 (10 s)',
    );
    expect((await put({ status: 201 }, 'wrong-token')).status).toBe(401);
    expect((await h.api('GET', `/api/endpoints/${ep.id}`, { token: ep.token })).json).toMatchObject({
      response: null,
    });
  });

  // issue 34: `X-A: €` was accepted, then every capture answered fastify's raw 500 (ERR_INVALID_CHAR) though
  // it was stored, so senders retried and duplicated; Clear-Site-Data wiped the inspector origin's storage
  it('refuses header values node:http cannot send and headers acting on the origin, naming the field', async () => {
    const h = get();
    const ep = await h.createEndpoint();
    const cases: Array<[{ name: string; value: string }, string]> = [
      [
        { name: 'X-A', value: '€' },
        'response: headers[0].value: at most 1024 characters of tab, visible ASCII',
      ],
      [{ name: 'X-A', value: '李雷' }, 'response: headers[0].value:'],
      [{ name: 'X-A', value: 'a\u0000b' }, 'response: headers[0].value:'],
      [
        { name: 'Clear-Site-Data', value: '"cookies", "storage"' },
        "response: headers[0].name: 'Clear-Site-Data'",
      ],
      [{ name: 'Location', value: 'https://evil.example/' }, "response: headers[0].name: 'Location'"],
      [{ name: 'Refresh', value: '0; url=https://evil.example/' }, "response: headers[0].name: 'Refresh'"],
      [{ name: 'Access-Control-Allow-Credentials', value: 'true' }, "'Access-Control-Allow-Credentials'"],
    ];
    for (const [header, message] of cases) {
      const r = await h.api('PUT', `/api/endpoints/${ep.id}/response`, {
        token: ep.token,
        body: { headers: [header] },
      });
      expect([r.status, error(r).code], header.name).toEqual([400, 'INVALID_ARGUMENT']);
      expect(error(r).error).toContain(message);
    }
    const sent = await h.send('POST', `/api/hook/${ep.id}`, { body: 'x' });
    expect([sent.status, sent.headers['clear-site-data']]).toEqual([200, undefined]);
  });

  it('answers a stored response whose headers were never checked, skipping those it cannot send', async () => {
    const h = get();
    const ep = await h.createEndpoint();
    // as stored before the checks above existed: straight to the store, past the API's parser
    await h.store.setEndpointResponse(ep.id, {
      status: 202,
      headers: [
        { name: 'X-Before', value: 'kept' },
        { name: 'X-A', value: '€' },
        { name: 'X-B', value: 'a\r\nX-Injected: 1' },
        { name: 'Clear-Site-Data', value: '"storage"' },
        { name: 'X-After', value: 'kept' },
      ],
      body: 'accepted',
      delayMs: 0,
    });
    const r = await h.send('POST', `/api/hook/${ep.id}`, { body: 'x' });
    expect([r.status, r.body.toString()]).toEqual([202, 'accepted']);
    expect([r.headers['x-before'], r.headers['x-after']]).toEqual(['kept', 'kept']);
    expect([
      r.headers['x-a'],
      r.headers['x-b'],
      r.headers['x-injected'],
      r.headers['clear-site-data'],
    ]).toEqual([undefined, undefined, undefined, undefined]);
    expect(typeof r.headers['x-inbox-request-id']).toBe('string');
  });

  it("is an account endpoint's too, set from its session (with the CSRF header)", async () => {
    const h = get();
    const cookie = await h.signUp(`resp-${Date.now()}`);
    const withSession = (method: string, path: string, body?: unknown) =>
      h.send(method, path, {
        headers: {
          cookie,
          'x-inbox-csrf': '1',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const created = await withSession('POST', '/api/endpoints', { name: 'mine' });
    const { id } = created.json as { id: string };
    expect((await withSession('PUT', `/api/endpoints/${id}/response`, { status: 204 })).status).toBe(200);
    expect((await withSession('PUT', `/api/endpoints/${id}/retention`, { maxRequests: 7 })).status).toBe(200);
    expect((await h.send('POST', `/api/hook/${id}`)).status).toBe(204);
    expect((await withSession('GET', `/api/endpoints/${id}`)).json).toMatchObject({
      kind: 'account',
      retention: { maxRequests: 7 },
      response: { status: 204, body: '' },
    });
    const noCsrf = await h.send('PUT', `/api/endpoints/${id}/response`, {
      headers: { cookie, 'content-type': 'application/json' },
      body: '{"status":200}',
    });
    expect(noCsrf.status).toBe(403);
  });

  it('stores the capture before the delay; the answer waits for it', async () => {
    const h = get();
    const ep = await h.createEndpoint();
    await h.api('PUT', `/api/endpoints/${ep.id}/response`, {
      token: ep.token,
      body: { status: 201, body: 'late', delayMs: 1500 },
    });
    let answered = false;
    const pending = h.send('POST', `/api/hook/${ep.id}`, { body: 'x' }).finally(() => (answered = true));
    await waitUntil(async () => (await h.store.countCaptures(ep.id)) === 1);
    expect(answered).toBe(false);
    const r = await pending;
    expect([r.status, r.body.toString()]).toEqual([201, 'late']);
  });
});

describe('a delayed answer at shutdown', () => {
  // the timeout, below the 10 s delay, is what fails if the drain waits it out
  it(
    'is sent at once when the inbox closes: the drain never waits out a delay',
    { timeout: 8000 },
    async () => {
      const redis = await startRedis();
      let h: InboxHarness | undefined = await startInboxHarness({ REDIS_URL: `redis://${redis.address}` });
      try {
        const ep = await h.createEndpoint();
        await h.api('PUT', `/api/endpoints/${ep.id}/response`, {
          token: ep.token,
          body: { status: 202, body: 'bye', delayMs: 10_000 },
        });
        const pending = h.send('POST', `/api/hook/${ep.id}`, { body: 'x' });
        const store = h.app.store;
        await waitUntil(async () => (await store.countCaptures(ep.id)) === 1);
        const closing = h.close();
        h = undefined;
        const r = await pending;
        expect([r.status, r.body.toString()]).toEqual([202, 'bye']);
        await closing;
      } finally {
        await h?.close();
        await redis.stop();
      }
    },
  );
});
