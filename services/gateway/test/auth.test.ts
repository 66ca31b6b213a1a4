import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayHarness, type GatewayHarness } from './harness.js';

const SECRET = 'k'.repeat(48);
const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

describe('gateway auth: jwt', () => {
  let g: GatewayHarness;
  beforeAll(async () => {
    g = await startGatewayHarness({
      GATEWAY_AUTH: 'jwt',
      GATEWAY_JWT_SECRET: SECRET,
      GATEWAY_CORS_ORIGINS: 'https://app.example',
    });
    await g.app.backend.accounts.createUser({ username: 'alice', password: 'correct horse' });
  });
  afterAll(() => g.close());

  const login = async (): Promise<string> => {
    const r = await g.request('POST', '/api/auth', {
      body: { username: 'alice', password: 'correct horse' },
    });
    expect(r.status).toBe(200);
    return (r.body as { jwt: string }).jwt;
  };

  it('issues a token for JSON or form credentials, and one identical 401 for any failure', async () => {
    expect(await login()).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    const form = await g.request('POST', '/api/auth', {
      form: { username: 'alice', password: 'correct horse' },
    });
    expect(form.body).toHaveProperty('jwt');
    const wrong = await g.request('POST', '/api/auth', {
      body: { username: 'alice', password: 'wrong password' },
    });
    const unknown = await g.request('POST', '/api/auth', {
      body: { username: 'mallory', password: 'correct horse' },
    });
    expect([wrong.status, wrong.body]).toEqual([
      401,
      { error: 'Login not successful', code: 'UNAUTHENTICATED' },
    ]);
    expect(unknown.body).toEqual(wrong.body);
  });

  it('guards routes: 401 with WWW-Authenticate without a token, the caller with one, open routes open', async () => {
    const none = await g.request('GET', '/api/test');
    expect([none.status, none.body]).toEqual([
      401,
      { error: 'No Authorization Header found', code: 'UNAUTHENTICATED' },
    ]);
    expect(none.headers.get('www-authenticate')).toBe('Bearer realm="api"');
    const token = await login();
    for (const header of [`Bearer ${token}`, `bearer ${token}`, `Bearer+${token}`]) {
      const ok = await g.request('GET', '/api/test', { headers: { authorization: header } });
      expect(ok.body).toMatchObject({ message: 'test successful', user: { username: 'alice' } });
    }
    expect((await g.request('GET', '/api/ping')).status).toBe(200);
  });

  it('issue 15: the example routes that show platform accounts answer 401 without credentials', async () => {
    const { accounts } = await g.app.backend.accounts.list();
    const id = accounts[0]?.id ?? 'none';
    for (const path of ['/api/users', `/api/users/${id}`, '/api/v2/hello']) {
      const r = await g.request('GET', path);
      expect([path, r.status, r.body]).toEqual([
        path,
        401,
        { error: 'No Authorization Header found', code: 'UNAUTHENTICATED' },
      ]);
    }
  });

  it('refuses alg none, a forged signature, a tampered payload and an expired token with 401, never 500', async () => {
    const token = await login();
    const [header, payload, signature] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString()) as Record<string, unknown>;
    const expiredPayload = b64({ ...claims, exp: Math.floor(Date.now() / 1000) - 3600 });
    const forged = createHmac('sha256', 'another secret that is long enough!!')
      .update(`${header}.${payload}`)
      .digest('base64url');
    const cases: Array<[string, string]> = [
      [`${b64({ alg: 'none', typ: 'JWT' })}.${payload}.`, 'Invalid token'],
      [`${header}.${payload}.${forged}`, 'Invalid token'],
      [`${header}.${b64({ ...claims, username: 'root' })}.${signature}`, 'Invalid token'],
      [
        `${header}.${expiredPayload}.${createHmac('sha256', SECRET).update(`${header}.${expiredPayload}`).digest('base64url')}`,
        'Token expired',
      ],
    ];
    for (const [bad, message] of cases) {
      const r = await g.request('GET', '/api/test', { headers: { authorization: `Bearer ${bad}` } });
      expect([r.status, (r.body as { error: string }).error]).toEqual([401, message]);
      expect(r.headers.get('www-authenticate')).toContain('error="invalid_token"');
    }
    const basic = await g.request('GET', '/api/test', { headers: { authorization: 'Basic YWxpY2U6eA==' } });
    expect(basic.status).toBe(401);
  });

  it('revokes a token on DELETE /auth', async () => {
    const token = await login();
    const out = await g.request('DELETE', '/api/auth', { headers: { authorization: `Bearer ${token}` } });
    expect(out.body).toEqual({ message: 'logged out: alice' });
    const after = await g.request('GET', '/api/test', { headers: { authorization: `Bearer ${token}` } });
    expect([after.status, (after.body as { error: string }).error]).toEqual([401, 'Token revoked']);
  });

  it('answers preflights: allowed origins get CORS headers, others none', async () => {
    const pre = await fetch(`${g.url}/api/auth`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://app.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(pre.status).toBe(204);
    expect(pre.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(pre.headers.get('access-control-allow-headers')).toBe('content-type');
    expect(pre.headers.get('access-control-allow-credentials')).toBeNull();
    const other = await fetch(`${g.url}/api/users`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' },
    });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('gateway auth: session', () => {
  let g: GatewayHarness;
  beforeAll(async () => {
    g = await startGatewayHarness({ GATEWAY_AUTH: 'session', GATEWAY_CORS_ORIGINS: 'https://app.example' });
    await g.app.backend.accounts.createUser({ username: 'bob', password: 'hunter2hunter2' });
  });
  afterAll(() => g.close());

  it('signs in with a cookie that works until DELETE /auth ends the session', async () => {
    const none = await g.request('GET', '/api/test');
    expect([none.status, (none.body as { error: string }).error]).toEqual([
      401,
      'user does not have authorization',
    ]);
    const login = await g.request('POST', '/api/auth', {
      body: { username: 'bob', password: 'hunter2hunter2' },
    });
    expect(login.body).toEqual({ message: 'logged in: bob' });
    const setCookie = login.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/^portcullis_session=[^;]+; Path=\/; HttpOnly; SameSite=Lax; Max-Age=86400$/);
    const cookie = setCookie.split(';')[0] ?? '';
    expect((await g.request('GET', '/api/test', { headers: { cookie } })).body).toMatchObject({
      user: { username: 'bob' },
    });
    const tampered = `${cookie.slice(0, -3)}abc`;
    expect((await g.request('GET', '/api/test', { headers: { cookie: tampered } })).status).toBe(401);
    const out = await g.request('DELETE', '/api/auth', { headers: { cookie } });
    expect(out.body).toEqual({ message: 'logged out: bob' });
    expect(out.headers.get('set-cookie')).toContain('Max-Age=0');
    expect((await g.request('GET', '/api/test', { headers: { cookie } })).status).toBe(401);
  });

  it('lets allowed cross-origin browsers send credentials', async () => {
    const r = await fetch(`${g.url}/api/ping`, { headers: { origin: 'https://app.example' } });
    expect(r.headers.get('access-control-allow-origin')).toBe('https://app.example');
    expect(r.headers.get('access-control-allow-credentials')).toBe('true');
  });
});
