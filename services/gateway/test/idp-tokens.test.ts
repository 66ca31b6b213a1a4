import { createHmac, randomUUID } from 'node:crypto';
import { CompactSign } from 'jose';
import { createCollectingLog } from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayHarness, type GatewayHarness } from './harness.js';
import {
  createSigningKey,
  signToken,
  startJwksServer,
  type JwksServer,
  type SigningKey,
} from './jwks-server.js';

// Tokens of identity providers, verified against a real JWKS server on node:http that rotates its keys.
// The gateway's clock (deps.now) is the test's: it moves past the refetch interval and the keys' max-age
// without waiting. Token lifetimes are real time (an hour), far from either.

const A = 'https://idp-a.test';
const B = 'https://idp-b.test';
const DEAD = 'https://idp-dead.test';
const REFETCH_MS = 10_000;
const MAX_AGE_MS = 300_000;
const INVALID = { error: 'Invalid token', code: 'UNAUTHENTICATED' };
const nowSec = (): number => Math.floor(Date.now() / 1000);
const b64 = (o: unknown): string => Buffer.from(JSON.stringify(o)).toString('base64url');

describe('gateway jwt: tokens of identity providers', () => {
  let jwks: JwksServer;
  let g: GatewayHarness;
  let offsetMs = 0;
  const logs = createCollectingLog();
  const advance = (ms: number): void => {
    offsetMs += ms;
  };
  const keys: Record<'rsa1' | 'rsa2' | 'ec1' | 'ed1' | 'rsaB' | 'stray', SigningKey> = {} as never;

  const claimsA = (extra: Record<string, unknown> = {}) => ({
    iss: A,
    aud: 'portcullis-api',
    sub: 'user-a',
    preferred_username: 'ada',
    exp: nowSec() + 3600,
    iat: nowSec(),
    ...extra,
  });
  const claimsB = (extra: Record<string, unknown> = {}) => ({
    iss: B,
    aud: ['someone-else', 'api-b'],
    sub: 'user-b',
    email: 'bo@b.test',
    exp: nowSec() + 3600,
    ...extra,
  });
  const call = (token: string) =>
    g.request('GET', '/api/test', { headers: { authorization: `Bearer ${token}` } });
  const metric = async (name: string, labels: string): Promise<number> => {
    const text = String((await g.request('GET', '/metrics')).body);
    const line = text
      .split('\n')
      .find((l) => l.startsWith(`${name}{`) && labels.split(',').every((x) => l.includes(x)));
    return line === undefined ? 0 : Number(line.split(' ').pop());
  };

  beforeAll(async () => {
    keys.rsa1 = await createSigningKey('RS256', 'rsa-1');
    keys.rsa2 = await createSigningKey('RS256', 'rsa-2');
    keys.ec1 = await createSigningKey('ES256', 'ec-1');
    keys.ed1 = await createSigningKey('EdDSA', 'ed-1');
    keys.rsaB = await createSigningKey('RS256', 'rsa-b');
    keys.stray = await createSigningKey('RS256', 'rsa-1'); // same kid as a published key, never published
    jwks = await startJwksServer();
    jwks.publish('/a/jwks', [keys.rsa1, keys.ec1]);
    jwks.publish('/b/jwks', [keys.ed1, keys.rsaB]);
    const issuers = [
      { issuer: A, jwksUrl: jwks.url('/a/jwks'), audience: 'portcullis-api', algorithms: ['RS256', 'ES256'] },
      {
        issuer: B,
        jwksUrl: jwks.url('/b/jwks'),
        audience: ['api-b'],
        algorithms: ['EdDSA'],
        usernameClaim: 'email',
      },
      { issuer: DEAD, jwksUrl: jwks.url('/dead/jwks'), audience: 'portcullis-api' },
    ];
    g = await startGatewayHarness(
      {
        GATEWAY_AUTH: 'jwt',
        GATEWAY_JWT_SECRET: 'i'.repeat(48),
        GATEWAY_JWT_ISSUERS: JSON.stringify(issuers),
        GATEWAY_JWKS_REFETCH_INTERVAL: `${REFETCH_MS}ms`,
      },
      { now: () => Date.now() + offsetMs, log: logs.log },
    );
    await g.app.backend.accounts.createUser({ username: 'alice', password: 'correct horse' });
  });
  afterAll(async () => {
    await g.close();
    await jwks.close();
  });

  it('accepts RS256, ES256 and EdDSA tokens of two issuers, each JWKS fetched once, each token verified once', async () => {
    const rs = await signToken(keys.rsa1, claimsA());
    const es = await signToken(keys.ec1, claimsA({ sub: 'user-e', preferred_username: undefined }));
    const ed = await signToken(keys.ed1, claimsB());
    const users = [];
    for (const token of [rs, es, ed]) {
      const r = await call(token);
      expect(r.status).toBe(200);
      users.push((r.body as { user: unknown }).user);
    }
    expect(users).toEqual([
      { id: 'user-a', username: 'ada' },
      { id: 'user-e', username: 'user-e' },
      { id: 'user-b', username: 'bo@b.test' },
    ]);
    expect([jwks.hits('/a/jwks'), jwks.hits('/b/jwks')]).toEqual([1, 1]);
    // no kid: taken when exactly one key of the set fits the algorithm
    expect(
      (await call(await signToken(keys.ed1, claimsB({ jti: randomUUID() }), { kid: undefined }))).status,
    ).toBe(200);
    expect(await metric('portcullis_gateway_jwks_fetches_total', `issuer="${A}",result="ok"`)).toBe(1);
    const hits = await metric('portcullis_gateway_token_cache_lookups_total', 'result="hit"');
    const misses = await metric('portcullis_gateway_token_cache_lookups_total', 'result="miss"');
    for (const token of [rs, es, ed]) expect((await call(token)).status).toBe(200);
    expect(await metric('portcullis_gateway_token_cache_lookups_total', 'result="hit"')).toBe(hits + 3);
    expect(await metric('portcullis_gateway_token_cache_lookups_total', 'result="miss"')).toBe(misses);
  });

  it('refuses another issuer or audience, a disallowed or absent algorithm, an expired token and forged signatures: 401, no fetch', async () => {
    const before = [jwks.hits('/a/jwks'), jwks.hits('/b/jwks')];
    const publicPem = JSON.stringify(keys.rsa1.jwk);
    const hs256 = (claims: object): string => {
      const input = `${b64({ alg: 'HS256', kid: 'rsa-1' })}.${b64(claims)}`;
      return `${input}.${createHmac('sha256', publicPem).update(input).digest('base64url')}`;
    };
    const cases: Array<[string, string, unknown]> = [
      ['another issuer', await signToken(keys.rsa1, claimsA({ iss: 'https://evil.test' })), INVALID],
      ['another audience', await signToken(keys.rsa1, claimsA({ aud: 'another-api' })), INVALID],
      ['no audience', await signToken(keys.rsa1, claimsA({ aud: undefined })), INVALID],
      [
        "RS256 where the issuer allows EdDSA only (its key is in that issuer's set)",
        await signToken(keys.rsaB, claimsB()),
        INVALID,
      ],
      ['EdDSA where the issuer allows RS256 and ES256', await signToken(keys.ed1, claimsA()), INVALID],
      ['alg none', `${b64({ alg: 'none', kid: 'rsa-1' })}.${b64(claimsA())}.`, INVALID],
      ['HS256 keyed with the public key (key confusion)', hs256(claimsA()), INVALID],
      [
        'signed by a key not published, under a published kid',
        await signToken(keys.stray, claimsA()),
        INVALID,
      ],
      [
        'a tampered payload',
        (await signToken(keys.rsa1, claimsA())).replace(
          /^([^.]+)\.[^.]+/,
          `$1.${b64(claimsA({ sub: 'admin' }))}`,
        ),
        INVALID,
      ],
      // signed by the issuer's key, so the claims are parsed: a first-wins parser behind us would read `admin`
      [
        'sub named twice',
        await new CompactSign(
          new TextEncoder().encode(JSON.stringify(claimsA()).replace('{', '{"sub":"admin",')),
        )
          .setProtectedHeader({ alg: keys.rsa1.alg, kid: keys.rsa1.kid, typ: 'JWT' })
          .sign(keys.rsa1.privateKey),
        INVALID,
      ],
      ['no sub', await signToken(keys.rsa1, claimsA({ sub: undefined })), INVALID],
      ['no exp', await signToken(keys.rsa1, claimsA({ exp: undefined })), INVALID],
      [
        'expired',
        await signToken(keys.rsa1, claimsA({ exp: nowSec() - 120 })),
        { error: 'Token expired', code: 'UNAUTHENTICATED' },
      ],
      ['not yet valid', await signToken(keys.rsa1, claimsA({ nbf: nowSec() + 3600 })), INVALID],
    ];
    for (const [name, token, body] of cases) {
      const r = await call(token);
      expect([name, r.status, r.body]).toEqual([name, 401, body]);
    }
    expect([jwks.hits('/a/jwks'), jwks.hits('/b/jwks')]).toEqual(before);
  });

  it('asks the JWKS again only when its Cache-Control max-age has passed', async () => {
    const before = jwks.hits('/a/jwks');
    advance(MAX_AGE_MS - 60_000);
    expect((await call(await signToken(keys.rsa1, claimsA({ jti: randomUUID() })))).status).toBe(200);
    expect(jwks.hits('/a/jwks')).toBe(before);
    advance(60_000);
    expect((await call(await signToken(keys.rsa1, claimsA({ jti: randomUUID() })))).status).toBe(200);
    expect(jwks.hits('/a/jwks')).toBe(before + 1);
  });

  it('costs one fetch per refetch interval for a flood of unknown kids', async () => {
    const flood = async (): Promise<void> => {
      const tokens = await Promise.all(
        Array.from({ length: 40 }, () => signToken(keys.stray, claimsA(), { kid: randomUUID() })),
      );
      const answers = await Promise.all(tokens.map(call));
      expect(answers.map((r) => [r.status, r.body])).toEqual(tokens.map(() => [401, INVALID]));
    };
    advance(REFETCH_MS);
    const before = jwks.hits('/a/jwks');
    await flood();
    expect(jwks.hits('/a/jwks')).toBe(before + 1);
    await flood();
    expect(jwks.hits('/a/jwks')).toBe(before + 1);
    advance(REFETCH_MS);
    await flood();
    expect(jwks.hits('/a/jwks')).toBe(before + 2);
  });

  it('takes a rotated key at once, and drops the retired one when the keys go stale', async () => {
    const retired = await signToken(keys.rsa1, claimsA({ jti: randomUUID() }));
    expect((await call(retired)).status).toBe(200);
    jwks.publish('/a/jwks', [keys.rsa2, keys.ec1]);
    advance(REFETCH_MS);
    const before = jwks.hits('/a/jwks');
    const rotated = await signToken(keys.rsa2, claimsA());
    expect((await call(rotated)).status).toBe(200);
    expect(jwks.hits('/a/jwks')).toBe(before + 1);
    // verified before the rotation, with keys still fresh: the cached verdict stands
    expect((await call(retired)).status).toBe(200);
    // never verified, and its kid is gone from the new set
    expect((await call(await signToken(keys.rsa1, claimsA({ jti: randomUUID() })))).body).toEqual(INVALID);
    advance(MAX_AGE_MS);
    expect((await call(retired)).body).toEqual(INVALID);
    expect((await call(rotated)).status).toBe(200);
    expect(jwks.hits('/a/jwks')).toBe(before + 2);
  });

  it('answers 503 JWKS_UNAVAILABLE for an issuer whose keys never came, asking it once per interval; cached keys keep working through an outage', async () => {
    const dead = async () => call(await signToken(keys.rsa1, { ...claimsA(), iss: DEAD, jti: randomUUID() }));
    const first = await dead();
    expect([first.status, first.body]).toEqual([
      503,
      { error: "the keys of the token's issuer cannot be fetched, retry shortly", code: 'JWKS_UNAVAILABLE' },
    ]);
    expect(Number(first.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await dead()).status).toBe(503);
    expect(jwks.hits('/dead/jwks')).toBe(1);
    expect(
      await metric('portcullis_gateway_jwks_fetches_total', `issuer="${DEAD}",result="http_error"`),
    ).toBe(1);
    advance(REFETCH_MS);
    expect((await dead()).status).toBe(503);
    expect(jwks.hits('/dead/jwks')).toBe(2);

    jwks.mode = 'reset';
    advance(MAX_AGE_MS);
    const before = jwks.hits('/a/jwks');
    expect((await call(await signToken(keys.ec1, claimsA({ jti: randomUUID() })))).status).toBe(200);
    expect(jwks.hits('/a/jwks')).toBe(before + 1);
    expect(await metric('portcullis_gateway_jwks_fetches_total', `issuer="${A}",result="unreachable"`)).toBe(
      1,
    );
    jwks.mode = 'up';
    expect((await g.request('GET', '/healthz')).status).toBe(200);
    const failures = logs.lines.filter((l) => l['@message'] === 'jwks fetch failed');
    expect(failures.map((l) => [l.level, l.url, l.result, l.kept])).toEqual([
      ['warn', jwks.url('/dead/jwks'), 'http_error', false],
      ['warn', jwks.url('/dead/jwks'), 'http_error', false],
      ['warn', jwks.url('/a/jwks'), 'unreachable', true],
    ]);
  });

  it("refuses a cached token once it is revoked with DELETE /auth, ours and an issuer's alike", async () => {
    // a verdict is cached only while the keys it was reached with are fresh: let them be fetched again
    advance(REFETCH_MS);
    const login = await g.request('POST', '/api/auth', {
      body: { username: 'alice', password: 'correct horse' },
    });
    const ours = (login.body as { jwt: string }).jwt;
    const theirs = await signToken(keys.ec1, claimsA({ jti: randomUUID() }));
    for (const [token, name] of [
      [ours, 'alice'],
      [theirs, 'ada'],
    ] as const) {
      const hits = await metric('portcullis_gateway_token_cache_lookups_total', 'result="hit"');
      expect((await call(token)).status).toBe(200);
      expect((await call(token)).status).toBe(200);
      expect(await metric('portcullis_gateway_token_cache_lookups_total', 'result="hit"')).toBe(hits + 1);
      const out = await g.request('DELETE', '/api/auth', { headers: { authorization: `Bearer ${token}` } });
      expect(out.body).toEqual({ message: `logged out: ${name}` });
      expect((await call(token)).body).toEqual({ error: 'Token revoked', code: 'UNAUTHENTICATED' });
    }
  });
});
