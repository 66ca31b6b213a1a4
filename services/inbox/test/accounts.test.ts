import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { beforeAll, expect, it } from 'vitest';
import { describeEachStore, sessionCookie, type InboxUnderTest, type RawResponse } from './harness.js';

// Accounts over real HTTP: sign-up/in/out with the session cookie, account-owned endpoints (404 to other
// accounts), claiming an anonymous endpoint, the CSRF check on cookie writes, and the request actions the
// inspector uses (body download, server-side replay under the egress policy).

const JSON_WRITE = { 'content-type': 'application/json', 'x-inbox-csrf': '1' };

describeEachStore(
  'accounts and account endpoints',
  (get) => {
    let h: InboxUnderTest;
    beforeAll(() => {
      h = get();
    });
    let n = 0;
    const uniqueName = (): string => `user${++n}-${Date.now()}`;
    const withCookie = (
      method: string,
      path: string,
      cookie: string,
      o: { body?: unknown; headers?: Record<string, string> } = {},
    ): Promise<RawResponse> =>
      h.send(method, path, {
        headers: {
          cookie,
          ...(method === 'GET' ? {} : { 'x-inbox-csrf': '1' }),
          ...(o.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...o.headers,
        },
        ...(o.body === undefined ? {} : { body: JSON.stringify(o.body) }),
      });

    it('signs up into a session cookie, tells who is signed in, and signs out', async () => {
      const username = uniqueName();
      const r = await h.send('POST', '/api/accounts', {
        body: JSON.stringify({ username, password: 'correct horse battery' }),
        headers: JSON_WRITE,
      });
      expect(r.status).toBe(201);
      expect(r.json).toEqual({
        account: { id: expect.any(String) as unknown, username, createdAt: expect.any(String) as unknown },
      });
      const set = String(r.headers['set-cookie']);
      expect(set).toMatch(/^portcullis_session=[^;]+; Path=\/; HttpOnly; SameSite=Lax; Max-Age=86400$/);
      const cookie = sessionCookie(r.headers);
      expect((await withCookie('GET', '/api/session', cookie)).json).toEqual({
        account: (r.json as { account: unknown }).account,
      });
      const out = await withCookie('DELETE', '/api/session', cookie);
      expect(out.status).toBe(204);
      expect(String(out.headers['set-cookie'])).toMatch(/^portcullis_session=; .*Max-Age=0/);
      expect((await withCookie('GET', '/api/session', cookie)).json).toEqual({ account: null });
    });

    it('signs in with the right password only, and ends the session the browser had', async () => {
      const username = uniqueName();
      const first = await h.signUp(username);
      const wrong = await h.send('POST', '/api/session', {
        body: JSON.stringify({ username, password: 'not the password' }),
        headers: JSON_WRITE,
      });
      expect(wrong.status).toBe(401);
      expect(wrong.json).toEqual({ error: 'wrong user name or password', code: 'UNAUTHENTICATED' });
      const ok = await withCookie('POST', '/api/session', first, {
        body: { username: username.toUpperCase(), password: 'correct horse battery' },
      });
      expect(ok.status).toBe(200);
      expect((await withCookie('GET', '/api/session', first)).json).toEqual({ account: null });
      expect((await withCookie('GET', '/api/session', sessionCookie(ok.headers))).json).toMatchObject({
        account: { username },
      });
    });

    it.each([
      ['a taken name (any case)', 'TAKEN', 409, 'USERNAME_TAKEN'],
      ['a name with a space', 'a b', 400, 'INVALID_USERNAME'],
      ['a short password', 'short-pw', 400, 'WEAK_PASSWORD'],
    ])('refuses sign-up with %s', async (_, kind, status, code) => {
      const taken = `taken${Date.now()}`;
      await h.signUp(taken);
      const body =
        kind === 'TAKEN'
          ? { username: taken.toUpperCase(), password: 'correct horse battery' }
          : kind === 'a b'
            ? { username: 'a b', password: 'correct horse battery' }
            : { username: uniqueName(), password: 'short' };
      const r = await h.send('POST', '/api/accounts', { body: JSON.stringify(body), headers: JSON_WRITE });
      expect([r.status, (r.json as { code: string }).code]).toEqual([status, code]);
    });

    it('gives endpoints created while signed in to the account: listed, read by its sessions, 404 to others', async () => {
      const alice = await h.signUp(uniqueName());
      const created = await withCookie('POST', '/api/endpoints', alice, { body: { name: 'alice hooks' } });
      expect(created.status).toBe(201);
      const ep = created.json as { id: string; kind: string; token?: string };
      expect(ep.kind).toBe('account');
      expect(ep.token).toBeUndefined();
      await h.send('POST', `/api/hook/${ep.id}/x`, { body: 'hello' });

      const list = await withCookie('GET', '/api/endpoints', alice);
      expect(
        (list.json as { endpoints: Array<{ id: string; name: string; kind: string }> }).endpoints,
      ).toEqual([
        expect.objectContaining({ id: ep.id, name: 'alice hooks', kind: 'account', requestCount: 1 }),
      ]);
      // a second session of the same account (another browser) sees it too
      const aliceElsewhere = await h.send('POST', '/api/session', {
        body: JSON.stringify({
          username: (
            (await withCookie('GET', '/api/session', alice)).json as { account: { username: string } }
          ).account.username,
          password: 'correct horse battery',
        }),
        headers: JSON_WRITE,
      });
      const second = sessionCookie(aliceElsewhere.headers);
      expect((await withCookie('GET', `/api/endpoints/${ep.id}/requests`, second)).status).toBe(200);

      const bob = await h.signUp(uniqueName());
      for (const path of [
        `/api/endpoints/${ep.id}`,
        `/api/endpoints/${ep.id}/requests`,
        `/api/endpoints/${ep.id}/stream`,
      ]) {
        const r = await withCookie('GET', path, bob);
        expect([path, r.status]).toEqual([path, 404]);
      }
      expect(
        (await withCookie('PATCH', `/api/endpoints/${ep.id}`, bob, { body: { name: 'x' } })).status,
      ).toBe(404);
      expect((await withCookie('DELETE', `/api/endpoints/${ep.id}`, bob)).status).toBe(404);
      expect((await withCookie('GET', '/api/endpoints', bob)).json).toEqual({ endpoints: [] });
      // nobody signed in: 401, as for an anonymous endpoint without its token
      expect((await h.api('GET', `/api/endpoints/${ep.id}`)).status).toBe(401);
      expect((await h.api('GET', '/api/endpoints')).status).toBe(401);

      expect((await withCookie('DELETE', `/api/endpoints/${ep.id}`, alice)).status).toBe(204);
      expect((await withCookie('GET', '/api/endpoints', alice)).json).toEqual({ endpoints: [] });
    });

    it('claims an anonymous endpoint into the account: its token stops working, captures stay', async () => {
      const anon = await h.createEndpoint('was anonymous');
      await h.send('POST', `/api/hook/${anon.id}`, { body: 'before the claim' });
      const carol = await h.signUp(uniqueName());
      const noSession = await h.send('POST', `/api/endpoints/${anon.id}/claim`, { token: anon.token });
      expect(noSession.status).toBe(401);
      const claimed = await h.send('POST', `/api/endpoints/${anon.id}/claim`, {
        token: anon.token,
        headers: { cookie: carol, 'x-inbox-csrf': '1' },
      });
      expect(claimed.status).toBe(200);
      expect(claimed.json).toMatchObject({
        id: anon.id,
        kind: 'account',
        name: 'was anonymous',
        requestCount: 1,
      });
      expect((await h.api('GET', `/api/endpoints/${anon.id}`, { token: anon.token })).status).toBe(401);
      expect((await withCookie('GET', `/api/endpoints/${anon.id}`, carol)).status).toBe(200);
      const again = await h.send('POST', `/api/endpoints/${anon.id}/claim`, {
        token: anon.token,
        headers: { cookie: await h.signUp(uniqueName()), 'x-inbox-csrf': '1' },
      });
      expect(again.status).toBe(401);
    });

    it('refuses cookie writes without the CSRF header or from another site; bearer calls need neither', async () => {
      const dave = await h.signUp(uniqueName());
      const noHeader = await h.send('POST', '/api/endpoints', {
        body: '{}',
        headers: { cookie: dave, 'content-type': 'application/json' },
      });
      expect(noHeader.status).toBe(403);
      expect((noHeader.json as { code: string }).code).toBe('CSRF_CHECK_FAILED');
      const crossSite = await withCookie('POST', '/api/endpoints', dave, {
        body: {},
        headers: { 'sec-fetch-site': 'cross-site' },
      });
      expect(crossSite.status).toBe(403);
      const otherOrigin = await withCookie('POST', '/api/endpoints', dave, {
        body: {},
        headers: { origin: 'https://evil.example' },
      });
      expect(otherOrigin.status).toBe(403);
      const sameOrigin = await withCookie('POST', '/api/endpoints', dave, {
        body: {},
        headers: { origin: h.url, 'sec-fetch-site': 'same-origin' },
      });
      expect(sameOrigin.status).toBe(201);
      // sign-in itself is a cookie-setting write: login CSRF is refused too
      const login = await h.send('POST', '/api/session', {
        body: JSON.stringify({ username: 'x', password: 'y' }),
        headers: { 'content-type': 'application/json' },
      });
      expect(login.status).toBe(403);
      // the CLI's calls: a bearer token, no cookie
      const anon = await h.createEndpoint();
      expect(
        (await h.api('PATCH', `/api/endpoints/${anon.id}`, { token: anon.token, body: { name: 'n' } }))
          .status,
      ).toBe(200);
      // receive URLs are for other sites by design
      expect(
        (
          await h.send('POST', `/api/hook/${anon.id}`, {
            body: 'x',
            headers: { cookie: dave, 'sec-fetch-site': 'cross-site' },
          })
        ).status,
      ).toBe(200);
    });

    it('downloads a body exactly as received, as an attachment nothing renders', async () => {
      const anon = await h.createEndpoint();
      const body = Buffer.from([0x3c, 0x62, 0x3e, 0xff, 0x00, 0xfe]); // "<b>" then bytes that are not UTF-8
      const { requestId } = (
        await h.send('POST', `/api/hook/${anon.id}`, {
          body,
          headers: { 'content-type': 'text/html' },
        })
      ).json as { requestId: string };
      const r = await h.api('GET', `/api/endpoints/${anon.id}/requests/${requestId}/body`, {
        token: anon.token,
      });
      expect(r.status).toBe(200);
      expect(r.body.equals(body)).toBe(true);
      expect(r.headers['content-type']).toBe('application/octet-stream');
      expect(r.headers['content-disposition']).toBe(`attachment; filename="${requestId}.bin"`);
      expect(r.headers['x-content-type-options']).toBe('nosniff');
      expect(r.headers['content-security-policy']).toBe("default-src 'none'; sandbox");
      expect((await h.api('GET', `/api/endpoints/${anon.id}/requests/${requestId}/body`)).status).toBe(401);
    });

    it('replays a stored request byte for byte to a target; a signature made by the sender still verifies', async () => {
      const secret = 'replay-secret';
      const received: Array<{ url: string; body: Buffer; signature: string | undefined }> = [];
      const target: Server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (c: Buffer) => chunks.push(c));
        req.on('end', () => {
          received.push({
            url: req.url ?? '',
            body: Buffer.concat(chunks),
            signature: req.headers['x-hub-signature-256'] as string | undefined,
          });
          res.writeHead(202).end();
        });
      });
      await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
      try {
        const anon = await h.createEndpoint();
        const body = Buffer.concat([Buffer.from('{"a":1}\r\n'), Buffer.from([0xff, 0x00])]);
        const signature = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
        const { requestId } = (
          await h.send('POST', `/api/hook/${anon.id}/gh?x=1`, {
            body,
            headers: { 'x-hub-signature-256': signature },
          })
        ).json as { requestId: string };
        const { port } = target.address() as AddressInfo;
        const r = await h.api('POST', `/api/endpoints/${anon.id}/requests/${requestId}/replay`, {
          token: anon.token,
          body: { to: `http://127.0.0.1:${port}/hooks` },
        });
        expect(r.status).toBe(200);
        expect(r.json).toMatchObject({
          status: 202,
          target: `http://127.0.0.1:${port}/hooks`,
          path: '/hooks/gh?x=1',
        });
        expect(received).toHaveLength(1);
        expect(received[0]?.body.equals(body)).toBe(true);
        expect(received[0]?.signature).toBe(
          `sha256=${createHmac('sha256', secret)
            .update(received[0]?.body ?? '')
            .digest('hex')}`,
        );

        const bad = await h.api('POST', `/api/endpoints/${anon.id}/requests/${requestId}/replay`, {
          token: anon.token,
          body: { to: 'ftp://example.com/' },
        });
        expect(bad.status).toBe(400);
        target.close();
        const dead = await h.api('POST', `/api/endpoints/${anon.id}/requests/${requestId}/replay`, {
          token: anon.token,
          body: { to: `http://127.0.0.1:${port}/hooks` },
        });
        expect(dead.status).toBe(502);
        // the reason, not the raw connect error with the address it tried
        expect(dead.json).toEqual({ code: 'TARGET_UNREACHABLE', error: 'connection failed (ECONNREFUSED)' });
      } finally {
        target.close();
      }
    });
  },
  { INBOX_EGRESS_ALLOW_PRIVATE: 'true' },
);

describeEachStore('replay under the default egress policy', (get) => {
  it('refuses a private target with 422 and sends nothing', async () => {
    const h = get();
    const anon = await h.createEndpoint();
    const { requestId } = (await h.send('POST', `/api/hook/${anon.id}`, { body: 'x' })).json as {
      requestId: string;
    };
    for (const to of [
      'http://127.0.0.1:9/x',
      'http://169.254.169.254/latest/meta-data/',
      'http://[::1]:9/',
    ]) {
      const r = await h.api('POST', `/api/endpoints/${anon.id}/requests/${requestId}/replay`, {
        token: anon.token,
        body: { to },
      });
      expect([to, r.status, (r.json as { code: string }).code]).toEqual([to, 422, 'EGRESS_REFUSED']);
    }
  });

  it('refuses to replay a capture whose nested path has a dot-dot segment, before any egress check (issue 34)', async () => {
    const h = get();
    const anon = await h.createEndpoint();
    const sent = await h.send('POST', `/api/hook/${anon.id}/..;/../admin?drop=all`, { body: 'x' });
    const { requestId } = sent.json as { requestId: string };
    const r = await h.api('POST', `/api/endpoints/${anon.id}/requests/${requestId}/replay`, {
      token: anon.token,
      body: { to: 'http://127.0.0.1:9/target' },
    });
    expect([r.status, r.json]).toEqual([
      422,
      {
        code: 'CAPTURE_UNSENDABLE',
        error:
          "not sent: the nested path has a '..' segment (or %2e%2e, or ..;), which could leave the target's path",
      },
    ]);
  });

  it('says no more than that an internal name does not resolve to a public address (issue 34)', async () => {
    const h = get();
    const anon = await h.createEndpoint();
    const { requestId } = (await h.send('POST', `/api/hook/${anon.id}`, { body: 'x' })).json as {
      requestId: string;
    };
    const r = await h.api('POST', `/api/endpoints/${anon.id}/requests/${requestId}/replay`, {
      token: anon.token,
      body: { to: 'http://localhost:9/x' },
    });
    expect([r.status, (r.json as { error: string }).error]).toEqual([
      422,
      'target refused: localhost does not resolve to a public address',
    ]);
  });
});
