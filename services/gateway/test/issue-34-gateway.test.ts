import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PROTO_FILES, createMessageCodec } from '@portcullis/protos';
import { createHttpClient, freePort, sendRawBytes, type HttpClient } from '@portcullis/testing';
import { createSotwServer, type SotwServer } from '@portcullis/xds';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_ROUTE_TYPE } from '../src/router/api-routes.js';
import { quietLog, startGatewayHarness, type GatewayHarness } from './harness.js';
import {
  createSigningKey,
  signToken,
  startJwksServer,
  type JwksServer,
  type SigningKey,
} from './jwks-server.js';

// issue 34, the gateway's findings 3, 5, 9–13 and 17, each against a real upstream on node:http, a real
// JWKS server and the gateway on a loopback port.

const codec = createMessageCodec(PROTO_FILES.portcullisConfig, 'portcullis.config.v1.ApiRoute');
const ISSUER = 'https://idp.test';
const MAX_BODY_BYTES = 64 * 1024;
const nowSec = (): number => Math.floor(Date.now() / 1000);

interface Seen {
  url: string;
  headers: IncomingMessage['headers'];
  /** The request's body arrived whole. */
  ended: boolean;
}

describe('issue 34: gateway', () => {
  let xds: SotwServer;
  let jwks: JwksServer;
  let key: SigningKey;
  let g: GatewayHarness;
  let upstream: Server;
  let http: HttpClient;
  /** Every request the upstream got, from its headers on. */
  const seen: Seen[] = [];

  const route = (name: string, path: string, backend: Record<string, unknown> = {}) => ({
    name,
    method: '*',
    path,
    auth: name !== 'up',
    backend: { service: 'up', namespace: 'demo', port: 0, path: '/internal', timeoutSeconds: 5, ...backend },
  });

  beforeAll(async () => {
    upstream = createServer((req, res) => {
      const entry: Seen = { url: req.url ?? '', headers: req.headers, ended: false };
      seen.push(entry);
      req.resume();
      req.on('end', () => {
        entry.ended = true;
        res.end(`got ${req.method} ${req.url}`);
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const port = (upstream.address() as AddressInfo).port;
    key = await createSigningKey('ES256', 'k1');
    jwks = await startJwksServer();
    jwks.publish('/jwks', [key]);
    xds = createSotwServer({ host: '127.0.0.1', port: await freePort(), log: quietLog });
    xds.setResources(API_ROUTE_TYPE, [
      {
        name: 'demo/up',
        value: codec.encode({
          name: 'demo/up',
          prefix: 'v1',
          createdAt: '2026-11-29T00:00:00Z',
          routes: [
            route('up', 'up[/{rest:.+}]', { port }),
            route('me', 'me', { port }),
            route('pass', 'pass', { port, forwardAuthorization: true }),
          ],
        }),
      },
    ]);
    await xds.start();
    g = await startGatewayHarness({
      GATEWAY_AUTH: 'jwt',
      GATEWAY_JWT_SECRET: 's'.repeat(48),
      GATEWAY_JWT_ISSUERS: JSON.stringify([
        { issuer: ISSUER, jwksUrl: jwks.url('/jwks'), audience: 'api', algorithms: ['ES256'] },
      ]),
      GATEWAY_REFRESH_TOKENS: 'body',
      GATEWAY_REFRESH_TTL: '48h',
      GATEWAY_XDS_SERVER_URL: `127.0.0.1:${xds.port}`,
      GATEWAY_XDS_RETRY_INTERVAL: '100ms',
      GATEWAY_BACKEND_HOST: '127.0.0.1',
      GATEWAY_MAX_BODY_BYTES: String(MAX_BODY_BYTES),
    });
    await g.app.backend.accounts.createUser({ username: 'alice', password: 'correct horse' });
    http = createHttpClient(g.app.port);
  });
  afterAll(async () => {
    http.close();
    await g.close();
    await xds.close();
    await jwks.close();
    upstream.closeAllConnections();
    upstream.close();
  });

  const idpToken = (claims: Record<string, unknown>): Promise<string> =>
    signToken(key, { iss: ISSUER, aud: 'api', sub: 'user-1', exp: nowSec() + 3600, ...claims });
  const lastSeen = (): Seen => {
    const last = seen.at(-1);
    if (!last) throw new Error('the upstream got nothing');
    return last;
  };
  const appKey = async (name: string): Promise<{ key: string; id: string }> => {
    const app = await g.app.apps.createApp({ name, roles: [] });
    const created = await g.app.apps.createKey(app.id, { name: 'k' });
    if (!created) throw new Error('no key');
    return { key: created.key, id: app.id };
  };

  it.each([
    '/api/v1/up/..;/..;/..;/admin',
    '/api/v1/up/a/..;/b',
    '/api/v1/up/.;x/admin',
    '/api/v1/up/..;jsessionid=1/admin',
    '/api/v1/up/%2e%2e;/admin',
    '/api/v1/up/%2E.;/admin',
    '/api/v1/up/.%2E;a=b;c/admin',
    '/api/v1/up/..%3b/admin',
    '/api/v1/up/.;',
  ])('finding 3: GET %s → 400 BAD_PATH, the upstream never asked', async (path) => {
    const before = seen.length;
    const r = await g.requestRaw(path);
    expect([r.status, r.body]).toMatchObject([400, { code: 'BAD_PATH' }]);
    expect(seen.length).toBe(before);
  });

  it.each([
    ['/api/v1/up/a;b/c', '/internal/up/a;b/c'],
    ['/api/v1/up/...;x', '/internal/up/...;x'],
    ['/api/v1/up/..a;/c', '/internal/up/..a;/c'],
  ])('finding 3: GET %s is no dot segment and reaches %s', async (path, expected) => {
    const r = await g.requestRaw(path);
    expect([r.status, r.body]).toEqual([200, `got GET ${expected}`]);
  });

  it('finding 5: identity headers outside Latin-1 or with CR/LF are percent-encoded, never a 500', async () => {
    const app = await appKey('日本 bot');
    const byKey = await g.request('GET', '/api/v1/me', { headers: { 'x-api-key': app.key } });
    expect(byKey.status).toBe(200);
    expect(lastSeen().headers['x-user-name']).toBe('%E6%97%A5%E6%9C%AC%20bot');
    expect(decodeURIComponent(String(lastSeen().headers['x-user-name']))).toBe('日本 bot');

    for (const username of ['李雷', 'eve\r\nX-Injected: 1', '100% ok', 'tab\there']) {
      const token = await idpToken({ sub: `idp-${username.length}`, preferred_username: username });
      const r = await g.request('GET', '/api/v1/me', { headers: { authorization: `Bearer ${token}` } });
      expect([username, r.status]).toEqual([username, 200]);
      const got = lastSeen().headers;
      expect(got['x-injected']).toBeUndefined();
      expect(String(got['x-user-name'])).toMatch(/^[\x21-\x7e]+$/);
      expect(decodeURIComponent(String(got['x-user-name']))).toBe(username);
    }
    // visible ASCII but `%` passes unchanged: existing backends see the names they saw before
    const plain = await idpToken({ sub: 'plain', preferred_username: 'ada.l@example.com' });
    await g.request('GET', '/api/v1/me', { headers: { authorization: `Bearer ${plain}` } });
    expect(lastSeen().headers['x-user-name']).toBe('ada.l@example.com');
    expect(lastSeen().headers['x-user-id']).toBe('plain');
  });

  it('finding 9: no spelling of an identity header comes through from the client', async () => {
    const a = await http.send({
      method: 'GET',
      path: '/api/v1/up/x',
      headers: [
        'host',
        'gateway.test',
        'x_user_id',
        'spoof-1',
        'X_User_Name',
        'spoof-2',
        'x-user_id',
        'spoof-3',
        'X_USER-NAME',
        'spoof-4',
        'x-user-id',
        'spoof-5',
      ],
    });
    expect([a.status, a.body]).toEqual([200, 'got GET /internal/up/x']);
    const got = lastSeen().headers;
    for (const name of Object.keys(got)) expect(name.replaceAll('_', '-')).not.toMatch(/^x-user-(id|name)$/);
  });

  it('finding 10: POST /auth reads the password and the refresh token from the body only', async () => {
    const inQuery = await g.request('POST', '/api/auth?username=alice&password=correct%20horse');
    expect([inQuery.status, inQuery.body]).toMatchObject([401, { error: 'Login not successful' }]);
    const signIn = await g.request('POST', '/api/auth', {
      body: { username: 'alice', password: 'correct horse' },
    });
    expect(signIn.status).toBe(200);
    const refresh = (signIn.body as { refresh_token: string }).refresh_token;
    const queried = await g.request(
      'POST',
      `/api/auth?grant_type=refresh_token&refresh_token=${encodeURIComponent(refresh)}`,
    );
    // the query is not read at all: a sign-in without credentials
    expect([queried.status, queried.body]).toMatchObject([401, { error: 'Login not successful' }]);
    // the token is still good from the body: the query did not spend it
    const body = await g.request('POST', '/api/auth', {
      body: { grant_type: 'refresh_token', refresh_token: refresh },
    });
    expect(body.status).toBe(200);
  });

  it('finding 11: two Host headers → 400, one → 200', async () => {
    const twice = await sendRawBytes(
      g.app.port,
      'GET /api/ping HTTP/1.1\r\nHost: a.example\r\nHost: b.example\r\nConnection: close\r\n\r\n',
    );
    expect(twice.statuses).toEqual([400]);
    const once = await sendRawBytes(
      g.app.port,
      'GET /api/ping HTTP/1.1\r\nHost: a.example\r\nConnection: close\r\n\r\n',
    );
    expect(once.statuses).toEqual([200]);
  });

  it("finding 12: the gateway's own credentials stay at the gateway; a route may pass Authorization on", async () => {
    const app = await appKey('shop');
    const cookie = 'theme=dark; portcullis_session=s3cret; portcullis_refresh=r3fresh; lang=en';
    const r = await g.request('GET', '/api/v1/me', { headers: { 'x-api-key': app.key, cookie } });
    expect(r.status).toBe(200);
    const got = lastSeen().headers;
    expect(got['x-api-key']).toBeUndefined();
    expect(got.cookie).toBe('theme=dark; lang=en');

    const token = await idpToken({ sub: 'bearer-user' });
    await g.request('GET', '/api/v1/me', { headers: { authorization: `Bearer ${token}` } });
    expect(lastSeen().headers.authorization).toBeUndefined();
    await g.request('GET', '/api/v1/pass', { headers: { authorization: `Bearer ${token}` } });
    expect(lastSeen().headers.authorization).toBe(`Bearer ${token}`);

    // only the gateway's cookies: no Cookie header at all when nothing else is left
    await g.request('GET', '/api/v1/up/y', { headers: { cookie: 'portcullis_session=s3cret' } });
    expect(lastSeen().headers.cookie).toBeUndefined();
  });

  it('finding 13: a body over GATEWAY_MAX_BODY_BYTES with Content-Length → 413 before the upstream is asked', async () => {
    const before = seen.length;
    const a = await http.send({
      method: 'POST',
      path: '/api/v1/up/big',
      body: Buffer.alloc(MAX_BODY_BYTES + 1),
    });
    expect([a.status, JSON.parse(a.body)]).toMatchObject([413, { code: 'BODY_TOO_LARGE' }]);
    expect(seen.length).toBe(before);
    const at = await http.send({
      method: 'POST',
      path: '/api/v1/up/fits',
      body: Buffer.alloc(MAX_BODY_BYTES),
    });
    expect([at.status, at.body]).toEqual([200, 'got POST /internal/up/fits']);
  });

  it('finding 13: a chunked body that passes the limit → 413, the upstream request aborted', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(
        { host: '127.0.0.1', port: g.app.port, method: 'POST', path: '/api/v1/up/chunked' },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
          req.destroy();
        },
      );
      req.on('error', reject);
      const timer = setTimeout(() => reject(new Error('no answer within 5 s')), 5000);
      req.on('close', () => clearTimeout(timer));
      // more than the limit in chunks, and the body never ends: the answer cannot wait for its end
      for (let i = 0; i < 4; i += 1) req.write(Buffer.alloc(MAX_BODY_BYTES / 2));
    });
    expect(status).toBe(413);
    const chunked = seen.filter((s) => s.url === '/internal/up/chunked');
    expect(chunked.every((s) => !s.ended)).toBe(true);
  });

  it('finding 17: an identity-provider subject never reads as an application', async () => {
    const app = await appKey('someapp');
    await g.request('GET', '/api/v1/me', { headers: { 'x-api-key': app.key } });
    expect(lastSeen().headers['x-user-id']).toBe(`app:${app.id}`);
    for (const sub of [`app:${app.id}`, `idp:app:${app.id}`]) {
      const token = await idpToken({ sub });
      const r = await g.request('GET', '/api/v1/me', { headers: { authorization: `Bearer ${token}` } });
      expect(r.status).toBe(200);
      expect(lastSeen().headers['x-user-id']).toBe(`idp:${sub}`);
    }
  });
});
