import { startRedis, type RedisServer } from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REFRESH_KEY_PREFIX } from '../src/auth/refresh-store-redis.js';
import { startGatewayHarness, type GatewayHarness } from './harness.js';

const ADMIN = 'an-admin-token-that-is-long-enough-0123456789';
const BASE_ENV = {
  GATEWAY_AUTH: 'jwt',
  GATEWAY_JWT_SECRET: 'r'.repeat(48),
  GATEWAY_JWT_TTL: '5m',
  GATEWAY_ADMIN_TOKEN: ADMIN,
};
const CREDENTIALS = { username: 'dora', password: 'correct horse' };

interface Issued {
  jwt: string;
  refresh_token?: string;
  token_type: string;
  expires_in: number;
  refresh_expires_in: number;
}

describe.each(['memory', 'redis'] as const)('refresh tokens, body mode (%s store)', (store) => {
  let redis: RedisServer | undefined;
  let g: GatewayHarness;
  let userId: string;

  beforeAll(async () => {
    if (store === 'redis') redis = await startRedis();
    g = await startGatewayHarness({
      ...BASE_ENV,
      GATEWAY_REFRESH_TOKENS: 'body',
      GATEWAY_REFRESH_TTL: '1h',
      ...(redis ? { REDIS_URL: `redis://${redis.address}` } : {}),
    });
    userId = (await g.app.backend.accounts.createUser(CREDENTIALS)).id;
  });
  afterAll(async () => {
    await g.close();
    await redis?.stop();
  });

  const signIn = async (userAgent = 'test-agent/1'): Promise<Issued> => {
    const r = await g.request('POST', '/api/auth', {
      body: CREDENTIALS,
      headers: { 'user-agent': userAgent },
    });
    expect(r.status).toBe(200);
    return r.body as Issued;
  };
  const refresh = (token: string | undefined) =>
    g.request('POST', '/api/auth', { body: { grant_type: 'refresh_token', refresh_token: token } });
  const whoAmI = async (jwt: string) =>
    (await g.request('GET', '/api/test', { headers: { authorization: `Bearer ${jwt}` } })).status;
  const admin = (method: string, path: string, token = ADMIN) =>
    g.request(method, `/admin/users/${path}`, { headers: { authorization: `Bearer ${token}` } });

  it('signs in with an access token and a refresh token; a refresh rotates both', async () => {
    const first = await signIn();
    expect(first).toMatchObject({ token_type: 'Bearer', expires_in: 300, refresh_expires_in: 3600 });
    expect(first.refresh_token).toMatch(/^rt\.[0-9a-f-]{36}\.[\w-]{43}$/);
    expect(await whoAmI(first.jwt)).toBe(200);
    const r = await refresh(first.refresh_token);
    expect(r.status).toBe(200);
    const second = r.body as Issued;
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(second.jwt).not.toBe(first.jwt);
    // the same family: the id part is kept, the secret is new
    expect(second.refresh_token?.split('.')[1]).toBe(first.refresh_token?.split('.')[1]);
    expect(await whoAmI(second.jwt)).toBe(200);
  });

  it('refuses malformed and unknown refresh tokens with REFRESH_TOKEN_INVALID', async () => {
    const unknown = `rt.${'0'.repeat(8)}-0000-0000-0000-${'0'.repeat(12)}.${'a'.repeat(43)}`;
    for (const token of [undefined, 'garbage', unknown]) {
      const r = await refresh(token);
      expect([r.status, r.body]).toEqual([
        401,
        { error: 'Invalid refresh token', code: 'REFRESH_TOKEN_INVALID' },
      ]);
      expect(r.headers.get('www-authenticate')).toBe('Bearer realm="api", error="invalid_grant"');
    }
  });

  it('a spent refresh token presented again revokes the whole family, access tokens included', async () => {
    const first = await signIn();
    const second = (await refresh(first.refresh_token)).body as Issued;
    const other = await signIn();
    const reused = await refresh(first.refresh_token);
    expect([reused.status, reused.body]).toMatchObject([401, { code: 'REFRESH_TOKEN_REUSED' }]);
    expect(await whoAmI(second.jwt)).toBe(401);
    expect(await whoAmI(first.jwt)).toBe(401);
    expect((await refresh(second.refresh_token)).body).toMatchObject({ code: 'REFRESH_TOKEN_INVALID' });
    // another sign-in's family is untouched
    expect(await whoAmI(other.jwt)).toBe(200);
    expect((await refresh(other.refresh_token)).status).toBe(200);
  });

  it('DELETE /auth ends the family: its refresh token and every access token of it are refused', async () => {
    const first = await signIn();
    const second = (await refresh(first.refresh_token)).body as Issued;
    const out = await g.request('DELETE', '/api/auth', {
      headers: { authorization: `Bearer ${second.jwt}` },
    });
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toBeNull();
    expect(await whoAmI(first.jwt)).toBe(401);
    expect((await refresh(second.refresh_token)).body).toMatchObject({ code: 'REFRESH_TOKEN_INVALID' });
  });

  it('admin: lists a user’s sign-ins and revokes one or all of them (/admin/users/{id}/sessions)', async () => {
    await admin('DELETE', `${userId}/sessions`);
    const a = await signIn('agent-a');
    const b = await signIn('agent-b');
    expect((await g.request('GET', `/admin/users/${userId}/sessions`)).status).toBe(401);
    expect((await admin('GET', `${userId}/sessions`, 'x'.repeat(45))).status).toBe(401);
    const listed = await admin('GET', `${userId}/sessions`);
    expect(listed.status).toBe(200);
    const families = (listed.body as { families: Array<Record<string, string>> }).families;
    expect(families.map((f) => f.userAgent)).toEqual(['agent-a', 'agent-b']);
    expect(families[0]).toMatchObject({ address: '127.0.0.1', id: a.refresh_token?.split('.')[1] });
    expect(Date.parse(families[0]?.createdAt ?? '')).not.toBeNaN();

    const first = families[0]?.id ?? '';
    const one = await admin('DELETE', `${userId}/sessions/${first}`);
    expect([one.status, one.body]).toEqual([204, undefined]);
    expect(await whoAmI(a.jwt)).toBe(401);
    expect(await whoAmI(b.jwt)).toBe(200);
    const again = await admin('DELETE', `${userId}/sessions/${first}`);
    expect([again.status, again.body]).toEqual([404, { error: 'No such session', code: 'NOT_FOUND' }]);
    // another user's id with this user's family: not theirs to end
    expect((await admin('DELETE', `someone-else/sessions/${families[1]?.id ?? ''}`)).status).toBe(404);
    expect(await whoAmI(b.jwt)).toBe(200);
    expect((await admin('DELETE', `${userId}/sessions`)).body).toEqual({ user: userId, revoked: 1 });
    expect(await whoAmI(b.jwt)).toBe(401);
    expect((await refresh(b.refresh_token)).body).toMatchObject({ code: 'REFRESH_TOKEN_INVALID' });
    expect((await admin('GET', `${userId}/sessions`)).body).toEqual({ user: userId, families: [] });
  });

  it('serves no sessions below the base path any more: <base>/auth/sessions is a route path', async () => {
    const r = await g.request('GET', `/api/auth/sessions?user=${userId}`, {
      headers: { authorization: `Bearer ${ADMIN}` },
    });
    expect([r.status, r.body]).toEqual([404, { error: 'Route not found', code: 'NOT_FOUND' }]);
  });

  it.runIf(store === 'redis')(
    'a token spent on one replica and reused on another revokes the family on both',
    async () => {
      const other = await startGatewayHarness({
        ...BASE_ENV,
        GATEWAY_REFRESH_TOKENS: 'body',
        GATEWAY_REFRESH_TTL: '1h',
        REDIS_URL: `redis://${redis?.address ?? ''}`,
      });
      try {
        const first = await signIn();
        const second = (await refresh(first.refresh_token)).body as Issued;
        const reused = await other.request('POST', '/api/auth', {
          body: { grant_type: 'refresh_token', refresh_token: first.refresh_token },
        });
        expect(reused.body).toMatchObject({ code: 'REFRESH_TOKEN_REUSED' });
        expect(await whoAmI(second.jwt)).toBe(401);
        expect((await refresh(second.refresh_token)).body).toMatchObject({ code: 'REFRESH_TOKEN_INVALID' });
      } finally {
        await other.close();
      }
    },
  );

  it.runIf(store === 'redis')('keeps only the hash of a refresh token in Redis', async () => {
    const issued = await signIn();
    const [, familyId = '', secret = ''] = (issued.refresh_token ?? '').split('.');
    const client = g.app.backend.redisPool?.next();
    const fields = await client?.hgetall(`${REFRESH_KEY_PREFIX}family:${familyId}`);
    expect(fields).toMatchObject({ user: userId, ua: 'test-agent/1' });
    expect(fields?.hash).toMatch(/^[\w-]{43}$/);
    expect(JSON.stringify(fields)).not.toContain(secret);
  });
});

describe('refresh tokens, cookie mode', () => {
  let g: GatewayHarness;
  let secure: GatewayHarness;
  beforeAll(async () => {
    g = await startGatewayHarness({ ...BASE_ENV, GATEWAY_REFRESH_TOKENS: 'cookie' });
    secure = await startGatewayHarness({
      ...BASE_ENV,
      GATEWAY_REFRESH_TOKENS: 'cookie',
      GATEWAY_COOKIE_SECURE: 'always',
    });
    await g.app.backend.accounts.createUser(CREDENTIALS);
    await secure.app.backend.accounts.createUser(CREDENTIALS);
  });
  afterAll(async () => {
    await g.close();
    await secure.close();
  });

  const cookieOf = (headers: Headers) => (headers.get('set-cookie') ?? '').split(';')[0] ?? '';

  it('sets the refresh token in an HttpOnly, SameSite=Strict cookie for the auth path only, and refreshes from it', async () => {
    const login = await g.request('POST', '/api/auth', { body: CREDENTIALS });
    expect(login.body).not.toHaveProperty('refresh_token');
    expect(login.headers.get('set-cookie')).toMatch(
      /^portcullis_refresh=rt\.[\w.-]+; Path=\/api\/auth; HttpOnly; SameSite=Strict; Max-Age=2592000$/,
    );
    const first = cookieOf(login.headers);
    const r = await g.request('POST', '/api/auth', {
      body: { grant_type: 'refresh_token' },
      headers: { cookie: first },
    });
    expect(r.status).toBe(200);
    const second = cookieOf(r.headers);
    expect(second).not.toBe(first);
    const reused = await g.request('POST', '/api/auth', {
      body: { grant_type: 'refresh_token' },
      headers: { cookie: first },
    });
    expect(reused.body).toMatchObject({ code: 'REFRESH_TOKEN_REUSED' });
  });

  it('DELETE /auth removes the cookie; GATEWAY_COOKIE_SECURE=always marks it Secure', async () => {
    const login = await g.request('POST', '/api/auth', { body: CREDENTIALS });
    const { jwt } = login.body as Issued;
    const out = await g.request('DELETE', '/api/auth', { headers: { authorization: `Bearer ${jwt}` } });
    expect(out.headers.get('set-cookie')).toBe(
      'portcullis_refresh=; Path=/api/auth; HttpOnly; SameSite=Strict; Max-Age=0',
    );
    const s = await secure.request('POST', '/api/auth', { body: CREDENTIALS });
    expect(s.headers.get('set-cookie')).toMatch(/; SameSite=Strict; Max-Age=2592000; Secure$/);
  });
});
