import { ENDPOINT_ID } from '@portcullis/config';
import { beforeAll, expect, it } from 'vitest';
import { ADMIN_TOKEN, describeEachStore, type InboxUnderTest } from './harness.js';

interface Summary {
  id: string;
  method: string;
  url: string;
}

describeEachStore(
  'management API',
  (get) => {
    let h: InboxUnderTest;
    beforeAll(() => {
      h = get();
    });
    const capture = async (id: string, path = ''): Promise<string> =>
      ((await h.send('POST', `/api/hook/${id}${path}`, { body: 'x' })).json as { requestId: string })
        .requestId;

    it('issue 15: refuses a JSON body nested deeper than INBOX_MAX_BODY_DEPTH with 400', async () => {
      // within the 4 KiB a sign-in body may have
      const deep = `{"name":${'['.repeat(1_500)}${']'.repeat(1_500)}}`;
      for (const [method, path] of [
        ['POST', '/api/endpoints'],
        ['POST', '/api/accounts'],
      ] as const) {
        const r = await h.send(method, path, {
          body: deep,
          headers: { 'content-type': 'application/json', 'x-inbox-csrf': '1' },
        });
        expect([r.status, r.json]).toEqual([
          400,
          { error: 'body is nested deeper than 64 levels', code: 'BODY_TOO_DEEP' },
        ]);
      }
    });

    it('issue 15: shows a captured JSON body nested too deep as text instead of failing to answer', async () => {
      const ep = await h.createEndpoint();
      const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
      const sent = await h.send('POST', `/api/hook/${ep.id}`, {
        body: deep,
        headers: { 'content-type': 'application/json' },
      });
      const { requestId } = sent.json as { requestId: string };
      const r = await h.api('GET', `/api/endpoints/${ep.id}/requests/${requestId}`, { token: ep.token });
      expect(r.status).toBe(200);
      expect((r.json as { body: unknown }).body).toEqual({
        kind: 'text',
        text: deep,
        jsonError: 'body is nested deeper than 64 levels',
      });
    });

    it('creates an anonymous endpoint: unguessable id, a token shown once, the receive URL', async () => {
      const r = await h.send('POST', '/api/endpoints', {
        body: JSON.stringify({ name: 'Stripe test' }),
        headers: { 'content-type': 'application/json' },
      });
      expect(r.status).toBe(201);
      const ep = r.json as Record<string, string>;
      expect(ep).toEqual({
        id: expect.stringMatching(ENDPOINT_ID) as unknown,
        name: 'Stripe test',
        kind: 'anonymous',
        receiveUrl: `https://inbox.example/base/api/hook/${ep.id}`,
        token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) as unknown,
        createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) as unknown,
      });
      expect(r.headers.location).toBe(`/api/endpoints/${ep.id}`);
      expect(r.headers['cache-control']).toBe('no-store');
      const read = await h.api('GET', `/api/endpoints/${ep.id}`, { token: ep.token });
      expect(read.json).toEqual({
        id: ep.id,
        name: 'Stripe test',
        kind: 'anonymous',
        receiveUrl: ep.receiveUrl,
        createdAt: ep.createdAt,
        retention: { maxRequests: 500, maxAgeSeconds: 604_800 },
        requestCount: 0,
        signature: null,
        response: null,
      });
      expect((await h.createEndpoint()).name).toBe('');
    });

    // issue 15: node keeps the first of two Authorization headers, and a proxy in front may check the other
    it('answers 401 to two Authorization headers, whichever holds the token', async () => {
      const a = await h.createEndpoint();
      for (const values of [
        [`Bearer ${a.token}`, 'Bearer wrong'],
        ['Bearer wrong', `Bearer ${a.token}`],
        [`Bearer ${a.token}`, `Bearer ${a.token}`],
      ]) {
        const rawHeaders = values.flatMap((v) => ['Authorization', v]);
        const r = await h.send('GET', `/api/endpoints/${a.id}`, { rawHeaders });
        expect([r.status, (r.json as { code: string }).code]).toEqual([401, 'UNAUTHENTICATED']);
      }
    });

    it('answers 401 without a token, with a wrong one and for unknown ids alike; 404 only to the admin', async () => {
      const a = await h.createEndpoint();
      const b = await h.createEndpoint();
      await capture(a.id);
      const invalid = { error: 'the token is not valid', code: 'UNAUTHENTICATED' };
      const cases: Array<[string, string | undefined, number, unknown]> = [
        [
          a.id,
          undefined,
          401,
          {
            error: "sign in, or give the endpoint's token as Authorization: Bearer <token>",
            code: 'UNAUTHENTICATED',
          },
        ],
        [a.id, b.token, 401, invalid],
        [a.id, `${a.token}x`, 401, invalid],
        ['AAAAAAAAAAAAAAAAAAAAAA', a.token, 401, invalid],
        ['not-an-id', a.token, 401, invalid],
        ['AAAAAAAAAAAAAAAAAAAAAA', ADMIN_TOKEN, 404, { error: 'no such endpoint', code: 'NOT_FOUND' }],
      ];
      for (const [id, token, status, body] of cases) {
        for (const path of [`/api/endpoints/${id}`, `/api/endpoints/${id}/requests`]) {
          const r = await h.api('GET', path, token === undefined ? {} : { token });
          expect([path, r.status, r.json]).toEqual([path, status, body]);
          if (status === 401) expect(r.headers['www-authenticate']).toMatch(/^Bearer realm="inbox"/);
        }
      }
      const admin = await h.api('GET', `/api/endpoints/${a.id}/requests`, { token: ADMIN_TOKEN });
      expect((admin.json as { requests: unknown[] }).requests).toHaveLength(1);
      expect((await h.api('PATCH', `/api/endpoints/${a.id}`, { body: { name: 'x' } })).status).toBe(401);
      expect((await h.api('DELETE', `/api/endpoints/${a.id}`, { token: b.token })).status).toBe(401);
    });

    it('renames, refusing names that are not short strings', async () => {
      const ep = await h.createEndpoint('before');
      const r = await h.api('PATCH', `/api/endpoints/${ep.id}`, { token: ep.token, body: { name: 'after' } });
      expect([r.status, (r.json as { name: string }).name]).toEqual([200, 'after']);
      const read = await h.api('GET', `/api/endpoints/${ep.id}`, { token: ep.token });
      expect((read.json as { name: string }).name).toBe('after');
      for (const body of [{ name: 7 }, { name: 'x'.repeat(201) }, { name: 'a\nb' }, {}, ['x']]) {
        const bad = await h.api('PATCH', `/api/endpoints/${ep.id}`, { token: ep.token, body });
        expect([bad.status, (bad.json as { code: string }).code]).toEqual([400, 'INVALID_ARGUMENT']);
      }
      const none = await h.api('PATCH', `/api/endpoints/${ep.id}`, { token: ep.token });
      expect(none.status).toBe(400);
    });

    // issue 15, found by Schemathesis: `null` created an endpoint although the document (and PATCH) say object
    it('creates with no body or an object, and refuses a JSON body that is not an object', async () => {
      for (const body of [null, [], 1, 'name']) {
        const bad = await h.api('POST', '/api/endpoints', { body });
        expect([body, bad.status, (bad.json as { code: string }).code]).toEqual([
          body,
          400,
          'INVALID_ARGUMENT',
        ]);
      }
      expect((await h.api('POST', '/api/endpoints', { body: {} })).status).toBe(201);
    });

    it("issue 17: answers fastify's refusals of a management body with the stable code of their status", async () => {
      const post = (body: string, type: string) =>
        h.send('POST', '/api/endpoints', { body, headers: { 'content-type': type } });
      const cases: Array<[string, string, number, string]> = [
        ['{nope', 'application/json', 400, 'BAD_REQUEST'],
        ['<name/>', 'application/xml', 415, 'UNSUPPORTED_MEDIA_TYPE'],
      ];
      for (const [body, type, status, code] of cases) {
        const r = await post(body, type);
        expect([r.status, (r.json as { code: string }).code]).toEqual([status, code]);
      }
    });

    it('pages through requests newest first with a before cursor, without gaps or repeats', async () => {
      const ep = await h.createEndpoint();
      const ids: string[] = [];
      for (let i = 0; i < 7; i++) ids.push(await capture(ep.id, `/n${i}`));
      const seen: Summary[] = [];
      let before: string | null = null;
      do {
        const query: string = `limit=3${before === null ? '' : `&before=${before}`}`;
        const r = await h.api('GET', `/api/endpoints/${ep.id}/requests?${query}`, { token: ep.token });
        const page = r.json as { requests: Summary[]; nextBefore: string | null };
        expect(page.requests.length).toBeLessThanOrEqual(3);
        seen.push(...page.requests);
        before = page.nextBefore;
      } while (before !== null);
      expect(seen.map((s) => s.id)).toEqual([...ids].reverse());
      expect(seen.map((s) => s.url)).toEqual(ids.map((_, i) => `/api/hook/${ep.id}/n${i}`).reverse());
      const all = await h.api('GET', `/api/endpoints/${ep.id}/requests`, { token: ep.token });
      expect(all.json).toMatchObject({ nextBefore: null });
      for (const q of ['limit=0', 'limit=101', 'limit=abc', 'before=yesterday']) {
        const bad = await h.api('GET', `/api/endpoints/${ep.id}/requests?${q}`, { token: ep.token });
        expect([q, bad.status]).toEqual([q, 400]);
      }
    });

    it('reads one request in full, and 404 for ids it does not hold', async () => {
      const ep = await h.createEndpoint();
      const other = await h.createEndpoint();
      const id = await capture(ep.id, '/one?a=b');
      const r = await h.api('GET', `/api/endpoints/${ep.id}/requests/${id}`, { token: ep.token });
      expect(r.json).toMatchObject({ id, endpointId: ep.id, method: 'POST', bodyBase64: 'eA==' });
      for (const rid of ['1-0', 'nope', id]) {
        const owner = rid === id ? other : ep;
        const miss = await h.api('GET', `/api/endpoints/${owner.id}/requests/${rid}`, { token: owner.token });
        expect([miss.status, miss.json]).toEqual([404, { error: 'no such request', code: 'NOT_FOUND' }]);
      }
    });

    it('deletes an endpoint and everything it captured', async () => {
      const ep = await h.createEndpoint();
      await capture(ep.id);
      const r = await h.api('DELETE', `/api/endpoints/${ep.id}`, { token: ep.token });
      expect([r.status, r.body.length]).toEqual([204, 0]);
      expect((await h.api('GET', `/api/endpoints/${ep.id}`, { token: ep.token })).status).toBe(401);
      expect((await h.api('GET', `/api/endpoints/${ep.id}`, { token: ADMIN_TOKEN })).status).toBe(404);
      expect((await h.send('POST', `/api/hook/${ep.id}`, { body: 'late' })).status).toBe(404);
      expect(await h.store.countCaptures(ep.id)).toBe(0);
    });
  },
  { INBOX_PUBLIC_URL: 'https://inbox.example/base/' },
);
