import { createHash } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import {
  CookieSessions,
  createMemoryAccountStore,
  createMemorySessionStore,
  createMemoryTokenDenylist,
  createScryptHasher,
} from '@portcullis/accounts';
import type { FastifyRequest } from 'fastify';
import { createHttpApp, createLogger, listenHttp } from '@portcullis/kit';
import { createHttpClient } from '@portcullis/testing';
import { createSigningKey, signToken, startJwksServer } from '../../test/jwks-server.js';
import { createApiKeyAuth } from '../apps/api-key-auth.js';
import { createMemoryAppStore } from '../apps/memory-app-store.js';
import { toHttpError } from '../error-mapper.js';
import { createExpiringCache } from '../expiring-cache.js';
import type { AuthMode } from '../settings.js';
import { Authenticator } from './authenticator.js';
import type { IdpIssuer } from './idp-issuers.js';
import { createIdpVerifier } from './idp-verifier.js';
import { createJwt } from './jwt.js';
import { createMemoryRefreshStore } from './refresh-store.js';
import { RefreshTokens } from './refresh-tokens.js';
import { createTokenVerifier, type VerifiedToken } from './token-verifier.js';

const JWT_OPTIONS = {
  secret: 's'.repeat(48),
  ttlSeconds: 60,
  issuer: 'portcullis-gateway',
  audience: 'portcullis',
};
const API_KEY_HEADER = 'x-api-key';
const log = createLogger({ level: 'fatal', format: 'json' });

interface Answer {
  status: number;
  body: unknown;
  challenge: string | undefined;
  setCookie: string | undefined;
}

const closers: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

/**
 * An Authenticator over the in-memory stores, served by a kit HTTP app with the gateway's error mapping:
 * `GET /caller` answers who `identify` found (`{}` for nobody), `GET /guarded` the 401 of `missing()`
 * instead, `POST /auth` and `DELETE /auth` sign in and out as the gateway's auth route does, as if over TLS
 * when the request has `x-https: 1`.
 */
async function setUp(
  mode: AuthMode,
  o: { refresh?: 'body' | 'cookie'; issuers?: IdpIssuer[]; apiKeys?: false } = {},
) {
  let t = Date.now();
  const now = () => t;
  const accounts = createMemoryAccountStore({ hasher: createScryptHasher({ ln: 10 }), now });
  const denylist = createMemoryTokenDenylist({ now });
  const jwt = createJwt(JWT_OPTIONS);
  const cache = createExpiringCache<VerifiedToken>({ maxEntries: 100, now });
  const apps = createMemoryAppStore({ now });
  const refresh =
    o.refresh &&
    new RefreshTokens({
      mode: o.refresh,
      ttlSeconds: 3600,
      accessTtlSeconds: JWT_OPTIONS.ttlSeconds,
      jwt,
      store: createMemoryRefreshStore(now),
      denylist,
      cookiePath: '/api/auth',
      secureCookie: 'auto',
      now,
    });
  const auth = new Authenticator({
    mode,
    jwt,
    tokens: createTokenVerifier({
      jwt,
      idp: createIdpVerifier({
        issuers: o.issuers ?? [],
        jwks: { timeoutMs: 2_000, freshness: { minMs: 60_000, maxMs: 600_000 }, refetchIntervalMs: 1_000 },
        log,
        now,
        onFetch: () => undefined,
      }),
      cache,
    }),
    accounts,
    cookies: new CookieSessions({
      accounts,
      sessions: createMemorySessionStore({ now }),
      keys: ['k'.repeat(32)],
      cookieName: 'sid',
      ttlSeconds: 600,
      secure: 'auto',
    }),
    denylist,
    ...(o.apiKeys === false
      ? {}
      : { apiKeys: createApiKeyAuth({ store: apps, header: API_KEY_HEADER, now }) }),
    ...(refresh ? { refresh } : {}),
  });

  const app = createHttpApp(log, toHttpError);
  app.get('/caller', async (request) => (await auth.identify(request)) ?? {});
  app.get('/guarded', async (request) => (await auth.identify(request)) ?? Promise.reject(auth.missing()));
  const isHttps = (request: FastifyRequest) => request.headers['x-https'] === '1';
  app.post('/auth', (request, reply) =>
    auth.login(request.body as Record<string, unknown>, reply, {
      secure: isHttps(request),
      cookie: request.headers.cookie,
      userAgent: 'test',
      address: request.ip,
    }),
  );
  app.delete('/auth', async (request, reply) =>
    auth.logout(await auth.identify(request), reply, isHttps(request)),
  );
  const server = await listenHttp(app, { host: '127.0.0.1', port: 0, setting: 'test' });
  const client = createHttpClient(server.port);
  closers.push(
    () => server.close(),
    () => client.close(),
  );

  /** `headers` as flat `[name, value, …]`, so a name may come twice. */
  const send = async (
    method: string,
    path: string,
    headers: string[] = [],
    body?: object,
  ): Promise<Answer> => {
    const r = await client.send({
      method,
      path,
      // node:http adds no Host to headers given as a list
      headers: ['host', '127.0.0.1', ...headers, ...(body ? ['content-type', 'application/json'] : [])],
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const setCookie = r.headers['set-cookie'];
    return {
      status: r.status,
      body: r.body === '' ? undefined : JSON.parse(r.body),
      challenge: r.headers['www-authenticate'] as string | undefined,
      setCookie: Array.isArray(setCookie) ? setCookie.join('\n') : setCookie,
    };
  };
  const alice = await accounts.createUser({ username: 'alice', password: 'correct horse' });
  const signIn = (
    params: object = { username: 'alice', password: 'correct horse' },
    headers: string[] = [],
  ) => send('POST', '/auth', headers, params);
  const bearer = (token: string) => ['authorization', `Bearer ${token}`];
  return {
    auth,
    accounts,
    denylist,
    jwt,
    cache,
    apps,
    alice,
    send,
    signIn,
    bearer,
    setClock: (ms: number) => (t = ms),
  };
}

/** The `name=value` part of a Set-Cookie value, as a browser sends it back. */
const sent = (setCookie: string | undefined): string => setCookie?.split(';')[0] ?? '';

const unauthenticated = (error: string) => ({ error, code: 'UNAUTHENTICATED' });
const INVALID_TOKEN = 'Bearer realm="api", error="invalid_token"';
const INVALID_REQUEST = 'Bearer realm="api", error="invalid_request"';

describe('Authenticator, jwt mode', () => {
  it('signs in with a password and names the account, its claims and what DELETE /auth revokes', async () => {
    const g = await setUp('jwt');
    const login = await g.signIn();
    expect(login.status).toBe(200);
    const { jwt: token } = login.body as { jwt: string };
    const claims = await g.jwt.verify(token);
    expect((await g.send('GET', '/caller', g.bearer(token))).body).toEqual({
      account: g.alice,
      via: 'jwt',
      claims,
      token: { revocationId: claims.jti, exp: claims.exp },
    });
    expect(claims.exp - Math.floor(Date.now() / 1000)).toBeGreaterThan(50);
  });

  it('answers nobody without an Authorization header, and the Bearer 401 where a caller is needed', async () => {
    const g = await setUp('jwt');
    expect(await g.send('GET', '/caller')).toMatchObject({ status: 200, body: {} });
    expect(await g.send('GET', '/caller', ['authorization', ''])).toMatchObject({ status: 200, body: {} });
    expect(await g.send('GET', '/guarded')).toEqual({
      status: 401,
      body: unauthenticated('No Authorization Header found'),
      challenge: 'Bearer realm="api"',
      setCookie: undefined,
    });
  });

  it('refuses a header that is not Bearer, and two Authorization headers even when both hold the token', async () => {
    const g = await setUp('jwt');
    const { jwt: token } = (await g.signIn()).body as { jwt: string };
    const bad = {
      status: 401,
      body: unauthenticated('Invalid Authorization header: expected Bearer <token>'),
      challenge: INVALID_REQUEST,
    };
    expect(await g.send('GET', '/caller', ['authorization', 'Basic YWxpY2U6eA=='])).toMatchObject(bad);
    expect(await g.send('GET', '/caller', [...g.bearer(token), ...g.bearer(token)])).toMatchObject(bad);
    expect(await g.send('GET', '/caller', [...g.bearer(token), 'authorization', 'Basic eA=='])).toMatchObject(
      bad,
    );
  });

  it('takes a token expired within the clock tolerance, refuses one expired longer and one of another key', async () => {
    const g = await setUp('jwt');
    const signedWith = async (o: Partial<typeof JWT_OPTIONS>) =>
      (await createJwt({ ...JWT_OPTIONS, ...o }).sign(g.alice)).token;
    const late = await g.send('GET', '/caller', g.bearer(await signedWith({ ttlSeconds: -10 })));
    expect(late.body).toMatchObject({ account: { username: 'alice' }, via: 'jwt' });
    expect(await g.send('GET', '/caller', g.bearer(await signedWith({ ttlSeconds: -60 })))).toMatchObject({
      status: 401,
      body: unauthenticated('Token expired'),
      challenge: INVALID_TOKEN,
    });
    expect(
      await g.send('GET', '/caller', g.bearer(await signedWith({ secret: 'o'.repeat(48) }))),
    ).toMatchObject({
      status: 401,
      body: unauthenticated('Invalid token'),
      challenge: INVALID_TOKEN,
    });
  });

  it('refuses a good token of a deleted account', async () => {
    const g = await setUp('jwt');
    const { jwt: token } = (await g.signIn()).body as { jwt: string };
    await g.accounts.deleteUser(g.alice.id);
    expect(await g.send('GET', '/caller', g.bearer(token))).toMatchObject({
      status: 401,
      body: unauthenticated('Invalid token'),
      challenge: INVALID_TOKEN,
    });
  });

  it('revokes the token on DELETE /auth, at once though its verdict is cached, until it expires past the tolerance', async () => {
    const g = await setUp('jwt');
    const { jwt: token } = (await g.signIn()).body as { jwt: string };
    const other = ((await g.signIn()).body as { jwt: string }).jwt;
    expect((await g.send('GET', '/caller', g.bearer(token))).status).toBe(200);
    expect(await g.send('DELETE', '/auth', g.bearer(token))).toMatchObject({
      status: 200,
      body: { message: 'logged out: alice' },
    });
    expect(g.cache.stats()).toMatchObject({ hits: 1, misses: 1 });
    expect(await g.send('GET', '/caller', g.bearer(token))).toMatchObject({
      status: 401,
      body: unauthenticated('Token revoked'),
      challenge: INVALID_TOKEN,
    });
    expect((await g.send('GET', '/caller', g.bearer(other))).status).toBe(200);
    const { jti, exp } = await g.jwt.verify(token);
    g.setClock((exp + 29) * 1000);
    expect(await g.denylist.isRevoked(jti)).toBe(true);
    g.setClock((exp + 30) * 1000);
    expect(await g.denylist.isRevoked(jti)).toBe(false);
  });

  it('refuses DELETE /auth without a caller, and a sign-in with a wrong, missing or non-text password', async () => {
    const g = await setUp('jwt');
    expect(await g.send('DELETE', '/auth')).toMatchObject({
      status: 401,
      body: unauthenticated('No Authorization Header found'),
    });
    const failed = {
      status: 401,
      body: unauthenticated('Login not successful'),
      challenge: 'Bearer realm="api"',
    };
    for (const params of [
      { username: 'alice', password: 'wrong horse' },
      { username: 'alice' },
      { password: 'correct horse' },
      { username: 'alice', password: ['correct horse'] },
      { username: ['alice'], password: 'correct horse' },
    ]) {
      expect(await g.signIn(params)).toMatchObject(failed);
    }
  });

  it('names the caller of an API key before reading the token, and refuses to sign it out', async () => {
    const g = await setUp('jwt');
    const app = await g.apps.createApp({ name: 'shop', roles: ['orders'] });
    const created = await g.apps.createKey(app.id, { name: 'ci' });
    const key = [API_KEY_HEADER, created?.key ?? ''];
    const caller = {
      account: { id: `app:${app.id}`, username: 'shop' },
      via: 'apikey',
      roles: ['orders'],
      app: { id: app.id, keyId: created?.info.id },
    };
    expect((await g.send('GET', '/caller', [...key, 'authorization', 'Basic eA=='])).body).toEqual(caller);
    expect(await g.send('DELETE', '/auth', key)).toMatchObject({
      status: 400,
      body: {
        error: 'DELETE /auth ends a token or session; revoke an API key through the admin API',
        code: 'INVALID_ARGUMENT',
      },
    });
  });
});

describe('Authenticator, jwt mode without API keys or refresh tokens', () => {
  it('reads tokens, takes grant_type=refresh_token as a password sign-in, and revokes a family token by its family', async () => {
    const g = await setUp('jwt', { apiKeys: false });
    const login = await g.signIn({
      grant_type: 'refresh_token',
      username: 'alice',
      password: 'correct horse',
    });
    expect(login).toMatchObject({ status: 200, setCookie: undefined });
    const { jwt: token } = login.body as { jwt: string };
    expect((await g.send('GET', '/caller', g.bearer(token))).body).toMatchObject({ via: 'jwt' });
    const { token: inFamily } = await g.jwt.sign(g.alice, 'fam-1');
    expect(await g.send('DELETE', '/auth', g.bearer(inFamily))).toMatchObject({
      status: 200,
      body: { message: 'logged out: alice' },
    });
    expect(await g.denylist.isRevoked('fam-1')).toBe(true);
  });
});

describe('Authenticator, jwt mode with refresh tokens', () => {
  it('starts a family on sign-in whose access tokens name it, refreshes, and ends it on DELETE /auth', async () => {
    const g = await setUp('jwt', { refresh: 'body' });
    const login = await g.signIn();
    const first = login.body as { jwt: string; refresh_token: string };
    expect(login).toMatchObject({
      body: { token_type: 'Bearer', expires_in: 60, refresh_expires_in: 3600 },
      setCookie: undefined,
    });
    const claims = await g.jwt.verify(first.jwt);
    expect(claims.fam).toEqual(expect.any(String));
    expect((await g.send('GET', '/caller', g.bearer(first.jwt))).body).toMatchObject({
      token: { revocationId: claims.fam, exp: claims.exp, family: claims.fam },
    });
    // another grant_type is a password sign-in
    expect(
      (await g.signIn({ grant_type: 'password', username: 'alice', password: 'correct horse' })).body,
    ).toHaveProperty('refresh_token');
    const refreshed = await g.signIn({ grant_type: 'refresh_token', refresh_token: first.refresh_token });
    const second = refreshed.body as { jwt: string; refresh_token: string };
    expect(refreshed.setCookie).toBeUndefined();
    expect((await g.jwt.verify(second.jwt)).fam).toBe(claims.fam);
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(await g.send('DELETE', '/auth', g.bearer(second.jwt))).toMatchObject({
      status: 200,
      body: { message: 'logged out: alice' },
      setCookie: undefined,
    });
    expect(
      await g.signIn({ grant_type: 'refresh_token', refresh_token: second.refresh_token }),
    ).toMatchObject({
      status: 401,
      body: { code: 'REFRESH_TOKEN_INVALID' },
    });
    expect((await g.send('GET', '/caller', g.bearer(first.jwt))).body).toEqual(
      unauthenticated('Token revoked'),
    );
  });

  it('refuses every access token of a family whose spent refresh token came back', async () => {
    const g = await setUp('jwt', { refresh: 'body' });
    const first = (await g.signIn()).body as { jwt: string; refresh_token: string };
    await g.signIn({ grant_type: 'refresh_token', refresh_token: first.refresh_token });
    expect(await g.signIn({ grant_type: 'refresh_token', refresh_token: first.refresh_token })).toMatchObject(
      {
        status: 401,
        body: { code: 'REFRESH_TOKEN_REUSED' },
      },
    );
    expect((await g.send('GET', '/caller', g.bearer(first.jwt))).body).toEqual(
      unauthenticated('Token revoked'),
    );
  });

  it('in cookie mode sets the refresh cookie, refreshes with it, and clears it on DELETE /auth', async () => {
    const g = await setUp('jwt', { refresh: 'cookie' });
    const login = await g.signIn();
    expect(login.body).not.toHaveProperty('refresh_token');
    expect(login.setCookie).toMatch(
      /^portcullis_refresh=rt\.[^;]+; Path=\/api\/auth; HttpOnly; SameSite=Strict/,
    );
    const refreshed = await g.signIn({ grant_type: 'refresh_token' }, [
      'cookie',
      sent(login.setCookie),
      'x-https',
      '1',
    ]);
    expect(refreshed.setCookie).toMatch(/^portcullis_refresh=rt\..*; Secure$/);
    expect(refreshed.setCookie).not.toBe(login.setCookie);
    const { jwt: token } = refreshed.body as { jwt: string };
    const out = await g.send('DELETE', '/auth', g.bearer(token));
    expect(out.setCookie).toBe('portcullis_refresh=; Path=/api/auth; HttpOnly; SameSite=Strict; Max-Age=0');
    // a token from outside any family (an identity provider's has none either) ends no family
    const { token: outside } = await g.jwt.sign(g.alice);
    expect(await g.send('DELETE', '/auth', g.bearer(outside))).toMatchObject({
      status: 200,
      body: { message: 'logged out: alice' },
      setCookie: undefined,
    });
  });
});

describe('Authenticator, identity providers', () => {
  it("names an issuer's user without a platform account, keeps its claims, and revokes the token by its hash", async () => {
    const jwks = await startJwksServer();
    closers.push(() => jwks.close());
    const key = await createSigningKey('ES256', 'k1');
    jwks.publish('/jwks', [key]);
    const issuer = 'https://idp.example';
    const g = await setUp('jwt', {
      issuers: [
        {
          issuer,
          jwksUrl: jwks.url('/jwks'),
          audiences: ['api'],
          algorithms: ['ES256'],
          usernameClaim: 'name',
        },
      ],
    });
    const exp = Math.floor(Date.now() / 1000) + 60;
    const payload = { iss: issuer, aud: 'api', sub: 'app:shop', exp, name: 'Bo', fam: 'f1' };
    const token = await signToken(key, payload);
    const revocationId = createHash('sha256').update(token).digest('base64url');
    expect((await g.send('GET', '/caller', g.bearer(token))).body).toEqual({
      account: { id: 'idp:app:shop', username: 'Bo' },
      via: 'jwt',
      claims: payload,
      token: { revocationId, exp },
    });
    for (const [sub, id] of [
      ['u1', 'u1'],
      ['idp:u1', 'idp:idp:u1'],
    ]) {
      const other = await signToken(key, { ...payload, sub });
      expect((await g.send('GET', '/caller', g.bearer(other))).body).toMatchObject({ account: { id } });
    }
    // the verdict is cached until the token's exp, before its keys (fresh for 300 s) go stale
    expect(g.cache.stats()).toMatchObject({ hits: 0, misses: 3 });
    expect((await g.send('GET', '/caller', g.bearer(token))).status).toBe(200);
    expect(g.cache.stats()).toMatchObject({ hits: 1, misses: 3 });
    g.setClock(exp * 1000);
    expect((await g.send('GET', '/caller', g.bearer(token))).status).toBe(200);
    expect(g.cache.stats()).toMatchObject({ hits: 1, misses: 4 });
    expect((await g.send('DELETE', '/auth', g.bearer(token))).body).toEqual({ message: 'logged out: Bo' });
    expect(await g.denylist.isRevoked(revocationId)).toBe(true);
    expect((await g.send('GET', '/caller', g.bearer(token))).body).toEqual(unauthenticated('Token revoked'));
  });
});

describe('Authenticator, session mode', () => {
  it('signs in with a cookie that names the session, ends it on DELETE /auth, and ignores Bearer tokens', async () => {
    const g = await setUp('session');
    const login = await g.signIn();
    expect(login).toMatchObject({ status: 200, body: { message: 'logged in: alice' } });
    const cookie = ['cookie', sent(login.setCookie)];
    const caller = (await g.send('GET', '/caller', cookie)).body as { sessionId: string };
    expect(caller).toEqual({ account: g.alice, via: 'session', sessionId: caller.sessionId });
    expect(sent(login.setCookie)).toMatch(/^sid=[\w-]{43}\.[\w-]{43}$/);
    expect(sent(login.setCookie).startsWith(`sid=${caller.sessionId}.`)).toBe(true);
    const { token } = await g.jwt.sign(g.alice);
    expect((await g.send('GET', '/caller', g.bearer(token))).body).toEqual({});
    const out = await g.send('DELETE', '/auth', [...cookie, 'x-https', '1']);
    expect(out).toMatchObject({ status: 200, body: { message: 'logged out: alice' } });
    expect(out.setCookie).toMatch(/^sid=; .*Max-Age=0; Secure$/);
    expect(await g.send('GET', '/caller', cookie)).toEqual({
      status: 401,
      body: unauthenticated('session expired or invalid'),
      challenge: 'Cookie realm="api"',
      setCookie: undefined,
    });
  });

  it('ends the session the sign-in request presented (no fixation)', async () => {
    const g = await setUp('session');
    const first = ['cookie', sent((await g.signIn()).setCookie)];
    const second = await g.signIn(undefined, first);
    expect((await g.send('GET', '/caller', first)).status).toBe(401);
    expect((await g.send('GET', '/caller', ['cookie', sent(second.setCookie)])).status).toBe(200);
  });

  it('answers nobody without a cookie, the Cookie 401 where a caller is needed, and to a failed sign-in', async () => {
    const g = await setUp('session');
    expect(await g.send('GET', '/caller')).toMatchObject({ status: 200, body: {} });
    const needed = {
      status: 401,
      body: unauthenticated('user does not have authorization'),
      challenge: 'Cookie realm="api"',
    };
    expect(await g.send('GET', '/guarded')).toMatchObject(needed);
    expect(await g.send('DELETE', '/auth')).toMatchObject(needed);
    expect(await g.signIn({ username: 'alice', password: 'wrong horse' })).toMatchObject({
      status: 401,
      body: unauthenticated('Login not successful'),
      challenge: 'Cookie realm="api"',
    });
  });
});

describe('Authenticator, mode none', () => {
  it('identifies nobody from a token or cookie, signs nobody in or out, and still names an API key', async () => {
    const g = await setUp('none');
    const { token } = await g.jwt.sign(g.alice);
    expect((await g.send('GET', '/caller', g.bearer(token))).body).toEqual({});
    const signIn = await g.signIn();
    expect([signIn.status, signIn.body, signIn.setCookie]).toEqual([200, null, undefined]);
    expect(await g.send('DELETE', '/auth', g.bearer(token))).toMatchObject({ status: 200, body: null });
    const app = await g.apps.createApp({ name: 'shop', roles: [] });
    const created = await g.apps.createKey(app.id, { name: 'ci' });
    expect((await g.send('GET', '/caller', [API_KEY_HEADER, created?.key ?? ''])).body).toMatchObject({
      via: 'apikey',
      account: { username: 'shop' },
    });
  });
});
