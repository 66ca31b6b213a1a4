import { request as httpRequest } from 'node:http';
import { createCollectingLog } from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayHarness, type GatewayHarness } from './harness.js';

const ADMIN = 'an-admin-token-that-is-long-enough-0123456789';
const REFUSED = { error: 'admin token required', code: 'UNAUTHENTICATED' };
const CHALLENGE = 'Bearer realm="admin"';

/** Every admin path, sessions included: one check guards them all, unknown paths too. */
const PATHS: Array<[method: string, path: string]> = [
  ['GET', '/admin/apps'],
  ['POST', '/admin/apps'],
  ['DELETE', '/admin/apps/a1/keys/k1'],
  ['PUT', '/admin/users/u1/roles'],
  ['GET', '/admin/users/u1/sessions'],
  ['DELETE', '/admin/users/u1/sessions/f1'],
  ['GET', '/admin/no-such-path'],
  ['GET', '/admin'],
];

/** One request with exactly these header lines (fetch would join two `Authorization` into one). */
function send(
  port: number,
  method: string,
  path: string,
  authorization: string[],
): Promise<{ status: number; body: unknown; challenge: string | undefined }> {
  return new Promise((resolve, reject) => {
    // in the form of rawHeaders, one line each; node adds no Host to these
    const headers = ['host', '127.0.0.1', ...authorization.flatMap((value) => ['authorization', value])];
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          body: text === '' ? undefined : (JSON.parse(text) as unknown),
          challenge: res.headers['www-authenticate'],
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

describe('the admin token check (GATEWAY_ADMIN_TOKEN), one for every admin path', () => {
  const collected = createCollectingLog();
  let g: GatewayHarness;
  let off: GatewayHarness;
  let userJwt: string;

  beforeAll(async () => {
    g = await startGatewayHarness(
      {
        GATEWAY_AUTH: 'jwt',
        GATEWAY_ADMIN_TOKEN: ADMIN,
        GATEWAY_REFRESH_TOKENS: 'body',
        GATEWAY_JWT_TTL: '5m',
      },
      { log: collected.log },
    );
    off = await startGatewayHarness({ GATEWAY_AUTH: 'jwt', GATEWAY_REFRESH_TOKENS: 'body' });
    await g.app.backend.accounts.createUser({ username: 'erin', password: 'correct horse' });
    const signIn = await g.request('POST', '/api/auth', {
      body: { username: 'erin', password: 'correct horse' },
    });
    userJwt = (signIn.body as { jwt: string }).jwt;
  });
  afterAll(async () => {
    await g.close();
    await off.close();
  });

  // the shared table: whatever is wrong with what was sent, the same 401, code and challenge
  const refusals: Array<[name: string, headers: () => string[]]> = [
    ['no Authorization header', () => []],
    ['a wrong token', () => ['Bearer nope']],
    ['the token with one character more', () => [`Bearer ${ADMIN}x`]],
    ['the token with one character less', () => [`Bearer ${ADMIN.slice(0, -1)}`]],
    ['another scheme', () => [`Basic ${ADMIN}`]],
    ['the bare token', () => [ADMIN]],
    ['two Authorization headers, the first the token', () => [`Bearer ${ADMIN}`, 'Bearer nope']],
    ['two Authorization headers, both the token', () => [`Bearer ${ADMIN}`, `Bearer ${ADMIN}`]],
    ["a user's valid token", () => [`Bearer ${userJwt}`]],
  ];

  it.each(refusals)('refuses %s on every admin path: 401 admin token required', async (_, headers) => {
    for (const [method, path] of PATHS) {
      const r = await send(g.app.port, method, path, headers());
      expect([method, path, r.status, r.body, r.challenge]).toEqual([method, path, 401, REFUSED, CHALLENGE]);
    }
  });

  it('lets the token through to each path (an unknown one is then a 404)', async () => {
    const statuses = await Promise.all(
      PATHS.map(async ([method, path]) => [
        `${method} ${path}`,
        (await send(g.app.port, method, path, [`Bearer ${ADMIN}`])).status,
      ]),
    );
    expect(Object.fromEntries(statuses)).toEqual({
      'GET /admin/apps': 200,
      'POST /admin/apps': 400,
      'DELETE /admin/apps/a1/keys/k1': 404,
      'PUT /admin/users/u1/roles': 400,
      'GET /admin/users/u1/sessions': 200,
      'DELETE /admin/users/u1/sessions/f1': 404,
      'GET /admin/no-such-path': 404,
      'GET /admin': 404,
    });
    const lowerCase = await send(g.app.port, 'GET', '/admin/apps', [`bearer ${ADMIN}`]);
    expect(lowerCase.status).toBe(200);
  });

  it('answers 404 ADMIN_DISABLED on every admin path while the token is empty, whatever is sent', async () => {
    for (const [method, path] of PATHS) {
      for (const headers of [[], [`Bearer ${ADMIN}`]]) {
        const r = await send(off.app.port, method, path, headers);
        expect([method, path, r.status, r.body]).toEqual([
          method,
          path,
          404,
          { error: 'the admin API is off: GATEWAY_ADMIN_TOKEN is not set', code: 'ADMIN_DISABLED' },
        ]);
      }
    }
  });

  it('logs refusals of a sent token at warn and granted requests at info, never the token', async () => {
    collected.lines.length = 0;
    await send(g.app.port, 'GET', '/admin/apps?x=1', ['Bearer nope']);
    await send(g.app.port, 'GET', '/admin/apps', [`Bearer ${ADMIN}`, `Bearer ${ADMIN}`]);
    await send(g.app.port, 'GET', '/admin/apps', []);
    await send(g.app.port, 'GET', '/admin/apps', [`Bearer ${ADMIN}`]);
    const admin = collected.lines.filter((l) => l.component === 'admin');
    expect(admin.map((l) => [l.level, l['@message'], l.reason, l.path, l.method])).toEqual([
      ['warn', 'admin token refused', 'wrong', '/admin/apps', 'GET'],
      ['warn', 'admin token refused', 'two headers', '/admin/apps', 'GET'],
      ['debug', 'admin token refused', 'missing', '/admin/apps', 'GET'],
      ['info', 'admin request', undefined, '/admin/apps', 'GET'],
    ]);
    expect(JSON.stringify(collected.lines)).not.toContain(ADMIN);
  });

  it('lists the admin API in <base>/openapi.json only to a reader presenting the token', async () => {
    const adminPaths = (body: unknown) =>
      Object.keys((body as { paths: Record<string, unknown> }).paths).filter((p) => p.startsWith('/admin/'));
    const admin = await g.request('GET', '/api/openapi.json', {
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    expect(admin.status).toBe(200);
    expect(adminPaths(admin.body)).toHaveLength(6);
    expect(admin.headers.get('cache-control')).toBe('private, no-cache');
    expect(admin.headers.get('vary')).toBe('Authorization');
    for (const headers of [{}, { authorization: `Bearer ${userJwt}` }] as Array<Record<string, string>>) {
      const other = await g.request('GET', '/api/openapi.json', { headers });
      expect([other.status, adminPaths(other.body)]).toEqual([200, []]);
      expect(other.headers.get('cache-control')).toBe('no-cache');
      expect(other.headers.get('etag')).not.toBe(admin.headers.get('etag'));
    }
    const wrong = await g.request('GET', '/api/openapi.json', { headers: { authorization: 'Bearer nope' } });
    expect(wrong.status).toBe(401);
    // GATEWAY_OPENAPI=auth: the admin token opens the document without a user's credentials
    const restricted = await startGatewayHarness({
      GATEWAY_AUTH: 'jwt',
      GATEWAY_ADMIN_TOKEN: ADMIN,
      GATEWAY_OPENAPI: 'auth',
    });
    try {
      expect((await restricted.request('GET', '/api/openapi.json')).status).toBe(401);
      const r = await restricted.request('GET', '/api/openapi.json', {
        headers: { authorization: `Bearer ${ADMIN}` },
      });
      expect([r.status, adminPaths(r.body)]).toEqual([200, expect.arrayContaining(['/admin/apps'])]);
    } finally {
      await restricted.close();
    }
  });

  it('serves no sessions path while refresh tokens are off', async () => {
    const plain = await startGatewayHarness({ GATEWAY_AUTH: 'jwt', GATEWAY_ADMIN_TOKEN: ADMIN });
    try {
      const r = await send(plain.app.port, 'GET', '/admin/users/u1/sessions', [`Bearer ${ADMIN}`]);
      expect([r.status, r.body]).toEqual([404, { error: 'Route not found', code: 'NOT_FOUND' }]);
    } finally {
      await plain.close();
    }
  });

  it('leaves /admin to the routes when the base path is there (allowed only while the token is empty)', async () => {
    const under = await startGatewayHarness({ GATEWAY_BASE_PATH: 'admin/api' });
    try {
      expect((await under.request('GET', '/admin/api/ping')).body).toEqual({ message: 'pong' });
    } finally {
      await under.close();
    }
  });
});
