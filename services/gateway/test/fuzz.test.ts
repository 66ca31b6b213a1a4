import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { PROTO_FILES, createMessageCodec } from '@portcullis/protos';
import {
  checkAnswer,
  checkRawAnswer,
  createHttpClient,
  describeRequest,
  freePort,
  fuzz,
  fuzzTimeoutMs,
  headerValue,
  httpPath,
  httpRequest,
  rawRequestBytes,
  userHeaderText,
  type HttpClient,
} from '@portcullis/testing';
import { createSotwServer, type SotwServer } from '@portcullis/xds';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_ROUTE_TYPE } from '../src/router/api-routes.js';
import { quietLog, startGatewayHarness, type GatewayHarness } from './harness.js';

// issue 15: the gateway (jwt auth, the shipped routes, an ApiRoute to a live upstream) under a few
// thousand generated requests from a fixed seed: never a 5xx, never a stack or an internal name in a body,
// and the upstream never gets a path outside its route's backend.path.

const codec = createMessageCodec(PROTO_FILES.portcullisConfig, 'portcullis.config.v1.ApiRoute');
const SECRET = 'f'.repeat(48);

const PREFIXES = [
  '/',
  '/api',
  '/api/test',
  '/api/ping',
  '/api/echo/1',
  '/api/users',
  '/api/users/x',
  '/api/v1/hello',
  '/api/v2/hello',
  '/api/v9/files',
  '/api/v9/files/a',
  '/api/../api/v9/files',
  '/api/v9/open',
  '/api/auth',
  '/healthz',
  '/readyz',
  '/metrics',
];

/**
 * Whether a path the upstream got stays under the route's `backend.path` (`/public/files`): no dot
 * segment in any encoding the upstream could resolve (issue 15 finding 1), nor one with `;` parameters,
 * which Tomcat, Jetty and Spring cut off before they resolve it (issue 34 finding 3).
 */
function isUnderBackendPath(url: string): boolean {
  const path = url.split('?')[0] ?? '';
  if (path !== '/public/files' && !path.startsWith('/public/files/')) return false;
  return path
    .split('/')
    .every((segment) => !['.', '..'].includes(withoutParameters(segment.replace(/%2e/gi, '.'))));
}

/** A path segment up to its first `;` (raw or `%3b`). */
function withoutParameters(segment: string): string {
  const at = segment.search(/;|%3b/i);
  return at === -1 ? segment : segment.slice(0, at);
}

describe('gateway fuzz (issue 15)', { timeout: fuzzTimeoutMs() }, () => {
  /** Paths the upstream got outside `backend.path`: must stay empty. */
  const escaped: string[] = [];
  let g: GatewayHarness;
  let xds: SotwServer;
  let upstream: Server;
  let http: HttpClient;
  let token = '';
  /** The `X-User-Name` the upstream got last. */
  let userName: string | string[] | undefined;

  beforeAll(async () => {
    upstream = createServer((req, res) => {
      if (!isUnderBackendPath(req.url ?? '')) escaped.push(req.url ?? '');
      userName = req.headers['x-user-name'];
      req.resume();
      req.on('end', () => res.end(`got ${req.method} ${req.url}`));
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const port = (upstream.address() as AddressInfo).port;
    xds = createSotwServer({ host: '127.0.0.1', port: await freePort(), log: quietLog });
    xds.setResources(API_ROUTE_TYPE, [
      {
        name: 'demo/files',
        value: codec.encode({
          name: 'demo/files',
          prefix: 'v9',
          createdAt: '2026-11-25T00:00:00Z',
          routes: [
            {
              name: 'files',
              method: '*',
              path: 'files[/{rest:.+}]',
              auth: true,
              backend: { service: 'files', namespace: 'demo', port, path: '/public', timeoutSeconds: 2 },
            },
            {
              name: 'open',
              method: '*',
              path: 'open/{id}',
              auth: false,
              requiredParams: ['id|int', 'q|email'],
              handler: 'Example.echo',
            },
          ],
        }),
      },
    ]);
    await xds.start();
    g = await startGatewayHarness({
      GATEWAY_AUTH: 'jwt',
      GATEWAY_JWT_SECRET: SECRET,
      GATEWAY_CORS_ORIGINS: 'https://app.example',
      GATEWAY_XDS_SERVER_URL: `127.0.0.1:${xds.port}`,
      GATEWAY_XDS_RETRY_INTERVAL: '100ms',
      GATEWAY_BACKEND_HOST: '127.0.0.1',
    });
    await g.app.backend.accounts.createUser({ username: 'alice', password: 'correct horse' });
    token = await signIn();
    http = createHttpClient(g.app.port);
  });
  afterAll(async () => {
    http.close();
    await g.close();
    await xds.close();
    upstream.close();
  });

  const signIn = async (): Promise<string> => {
    const r = await g.request('POST', '/api/auth', {
      body: { username: 'alice', password: 'correct horse' },
    });
    return (r.body as { jwt: string }).jwt;
  };

  /** Authorization forms: the valid token in good and bad wrappings, and garbage. */
  const authorization = (): fc.Arbitrary<string> =>
    fc.oneof(
      fc.constantFrom(
        `Bearer ${token}`,
        `bearer ${token}`,
        `Bearer+${token}`,
        `Bearer ${token}x`,
        `Basic ${token}`,
        'Bearer',
        'Bearer ',
      ),
      fc.tuple(fc.constantFrom('Bearer ', 'bearer ', 'Basic ', ''), headerValue()).map(([s, v]) => s + v),
    );

  it('answers any method, path, auth header and body without a 5xx or a leak', async () => {
    await fuzz(
      fc.constant(null).chain(() => httpRequest(PREFIXES, { headers: { authorization: authorization() } })),
      async (spec) => {
        const problem = checkAnswer(await http.send(spec), { sent: describeRequest(spec) });
        return problem ?? (escaped.length > 0 ? `the upstream got ${escaped.join(', ')}` : undefined);
      },
      { numRuns: 1200 },
    );
  });

  it('keeps every proxied path under backend.path, whatever the segments hold', async () => {
    let proxied = 0;
    let sent = 0;
    // a token of its own: the other properties' DELETE /auth may have revoked the first
    const fresh = await signIn();
    await fuzz(
      fc.tuple(fc.constantFrom('GET', 'POST', 'DELETE'), httpPath(['/api/v9/files', '/api/v9/files/a/b'])),
      async ([method, path]) => {
        const a = await http.send({ method, path, headers: { authorization: `Bearer ${fresh}` } });
        sent += 1;
        if (a.status === 200) proxied += 1;
        if (escaped.length > 0) return `the upstream got ${escaped.join(', ')}`;
        return checkAnswer(a, { sent: `${method} ${path}` });
      },
      { numRuns: 500 },
    );
    // most paths reach the upstream; the rest are refused (encoded separators, dot segments, bad escapes)
    expect(proxied).toBeGreaterThan(sent / 3);
  });

  it('issue 34: sends any application name as a visible-ASCII X-User-Name that decodes back', async () => {
    await fuzz(
      userHeaderText(),
      async (name) => {
        // straight into the store: the admin API refuses some of these names, an older store may hold them
        const app = await g.app.apps.createApp({ name, roles: [] });
        const created = await g.app.apps.createKey(app.id, { name: 'fuzz' });
        if (!created) return 'no key';
        userName = undefined;
        const a = await http.send({
          method: 'GET',
          path: '/api/v9/files/x',
          headers: { 'x-api-key': created.key },
        });
        if (a.status !== 200) return `status ${a.status}: ${a.body}`;
        // set by the upstream while the request was out: the compiler cannot see that
        const got = userName as string | string[] | undefined;
        if (typeof got !== 'string' || !/^[\x21-\x7e]+$/.test(got)) return `X-User-Name ${String(got)}`;
        // a lone surrogate has no UTF-8 and comes back as U+FFFD
        return decodeURIComponent(got) === Buffer.from(name, 'utf8').toString()
          ? undefined
          : `decodes to ${got}`;
      },
      { numRuns: 200 },
    );
  });

  it('answers malformed HTTP with a 4xx or a close', async () => {
    await fuzz(
      rawRequestBytes(httpPath(['/api/ping', '/api/v9/files', '/api/echo/1'])),
      (bytes) => checkRawAnswer(g.app.port, bytes),
      { numRuns: 300 },
    );
  });

  it('still serves the shipped routes and the upstream afterwards', async () => {
    // the fuzzed DELETE /auth revoked the first token: a fresh sign-in
    const auth = { authorization: `Bearer ${await signIn()}` };
    expect((await g.request('GET', '/api/test', { headers: auth })).status).toBe(200);
    const proxied = await g.request('GET', '/api/v9/files/a/b', { headers: auth });
    expect([proxied.status, proxied.body]).toEqual([200, 'got GET /public/files/a/b']);
    expect((await g.request('GET', '/healthz')).status).toBe(200);
  });
});

describe('gateway fuzz, session auth (issue 15)', { timeout: fuzzTimeoutMs() }, () => {
  let g: GatewayHarness;
  let http: HttpClient;
  let cookie = '';

  beforeAll(async () => {
    g = await startGatewayHarness({ GATEWAY_AUTH: 'session', GATEWAY_CORS_ORIGINS: 'https://app.example' });
    await g.app.backend.accounts.createUser({ username: 'bob', password: 'hunter2hunter2' });
    const login = await g.request('POST', '/api/auth', {
      body: { username: 'bob', password: 'hunter2hunter2' },
    });
    cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    http = createHttpClient(g.app.port);
  });
  afterAll(async () => {
    http.close();
    await g.close();
  });

  it('answers cookie and CSRF forms on every method and path without a 5xx or a leak', async () => {
    const cookies = fc.oneof(
      fc.constant(null).map(() => cookie),
      fc.constant(null).map(() => `${cookie}x`),
      fc.constant(null).map(() => `${cookie}; ${cookie}`),
      fc.constant(null).map(() => cookie.replace(/=.*/, '=%FF%FE')),
      headerValue().map((v) => `portcullis_session=${v}`),
      headerValue(),
    );
    await fuzz(
      httpRequest(PREFIXES, { headers: { cookie: cookies } }),
      async (spec) => checkAnswer(await http.send(spec), { sent: describeRequest(spec) }),
      { numRuns: 600 },
    );
    expect((await g.request('GET', '/healthz')).status).toBe(200);
  });
});
