import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { UnauthenticatedError } from '@portcullis/kit';
import { SignJWT } from 'jose';
import { bearerToken, createJwt } from './jwt.js';

const options = {
  secret: 's'.repeat(48),
  ttlSeconds: 60,
  issuer: 'portcullis-gateway',
  audience: 'portcullis',
};
const jwt = createJwt(options);
const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');

async function rejection(token: string): Promise<string> {
  const err = await jwt.verify(token).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(UnauthenticatedError);
  return (err as UnauthenticatedError).message;
}

describe('jwt', () => {
  it('signs and verifies its own tokens', async () => {
    const { token, claims } = await jwt.sign({ id: 'u1', username: 'alice' });
    expect(await jwt.verify(token)).toEqual(claims);
    expect(claims).toMatchObject({ sub: 'u1', username: 'alice' });
  });

  it('rejects alg none, a wrong signature, a tampered payload, another issuer and an expired token', async () => {
    const { token } = await jwt.sign({ id: 'u1', username: 'alice' });
    const [header, payload, signature] = token.split('.');
    const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString()) as Record<string, unknown>;
    expect(await rejection(`${b64({ alg: 'none', typ: 'JWT' })}.${payload}.`)).toBe('Invalid token');
    // the first character changed: always another signature (the last one carries padding bits too)
    const wrong = `${signature?.startsWith('A') ? 'B' : 'A'}${signature?.slice(1)}`;
    expect(await rejection(`${header}.${payload}.${wrong}`)).toBe('Invalid token');
    expect(await rejection(`${header}.${b64({ ...claims, sub: 'admin' })}.${signature}`)).toBe(
      'Invalid token',
    );
    const other = createJwt({ ...options, issuer: 'someone-else' });
    expect(await rejection((await other.sign({ id: 'u1', username: 'a' })).token)).toBe('Invalid token');
    const expiredPayload = b64({ ...claims, exp: Math.floor(Date.now() / 1000) - 120 });
    const expiredSig = createHmac('sha256', options.secret)
      .update(`${header}.${expiredPayload}`)
      .digest('base64url');
    expect(await rejection(`${header}.${expiredPayload}.${expiredSig}`)).toBe('Token expired');
    expect(await rejection('not-a-token')).toBe('Invalid token');
  });

  it('carries the refresh-token family and the username, and signs a JWT that expires ttlSeconds from now', async () => {
    const before = Math.floor(Date.now() / 1000);
    const { token, claims } = await jwt.sign({ id: 'u1', username: 'alice' }, 'fam-1');
    expect(claims).toMatchObject({ sub: 'u1', username: 'alice', fam: 'fam-1' });
    expect(claims.exp - before).toBeGreaterThanOrEqual(60);
    expect(claims.exp - before).toBeLessThanOrEqual(61);
    expect(JSON.parse(Buffer.from(token.split('.')[0] ?? '', 'base64url').toString())).toEqual({
      alg: 'HS256',
      typ: 'JWT',
    });
    expect(await jwt.verify(token)).toEqual(claims);
  });

  it('refuses, though signed with our key: a token without exp, sub or jti, a non-integer exp, a padded form', async () => {
    const key = new TextEncoder().encode(options.secret);
    const signed = (claims: Record<string, unknown>, set: (j: SignJWT) => SignJWT = (j) => j) =>
      set(
        new SignJWT(claims)
          .setProtectedHeader({ alg: 'HS256' })
          .setIssuer(options.issuer)
          .setAudience(options.audience),
      ).sign(key);
    const exp = Math.floor(Date.now() / 1000) + 60;
    expect(await rejection(await signed({ sub: 'u1', jti: 'j' }))).toBe('Invalid token');
    expect(await rejection(await signed({ exp, jti: 'j' }))).toBe('Invalid token');
    expect(await rejection(await signed({ exp, sub: 'u1' }))).toBe('Invalid token');
    expect(await rejection(await signed({ exp: exp + 0.5, sub: 'u1', jti: 'j' }))).toBe('Invalid token');
    const good = await signed({ exp, sub: 'u1', jti: 'j' });
    expect(await jwt.verify(good)).toEqual({ sub: 'u1', jti: 'j', exp, username: '' });
    expect(await jwt.verify(await signed({ exp, sub: 'u1', jti: 'j', username: 7, fam: 8 }))).toEqual({
      sub: 'u1',
      jti: 'j',
      exp,
      username: '',
    });
    expect(await rejection(`${good}=`)).toBe('Invalid token');
    // the 401 says only "Invalid token"; the cause, which the log keeps, says why
    const causes = await Promise.all(
      [`${good}=`, await signed({ exp: exp + 0.5, sub: 'u1', jti: 'j' })].map((t) =>
        jwt.verify(t).catch((e: unknown) => (e as Error).cause),
      ),
    );
    expect(causes.map((c) => (c as Error).message)).toEqual([
      'not a compact JWS in base64url',
      'exp: expected an integer',
    ]);
  });

  it('challenges a refused token with Bearer error="invalid_token"', async () => {
    const err = await jwt.verify('not-a-token').catch((e: unknown) => e);
    expect(err).toMatchObject({
      headers: { 'www-authenticate': 'Bearer realm="api", error="invalid_token"' },
    });
  });

  it('reads Bearer <token> in any case and the original Bearer+<token> form', () => {
    expect(bearerToken('Bearer abc.def.ghi')).toBe('abc.def.ghi');
    expect(bearerToken('bearer abc.def.ghi')).toBe('abc.def.ghi');
    expect(bearerToken('Bearer+abc.def.ghi')).toBe('abc.def.ghi');
    expect(bearerToken('Basic dXNlcjpwYXNz')).toBeUndefined();
    expect(bearerToken('abc.def.ghi')).toBeUndefined();
    expect(bearerToken('  Bearer   abc.def.ghi  ')).toBe('abc.def.ghi');
    expect(bearerToken('Bearer abc def')).toBeUndefined();
    expect(bearerToken('xBearer abc')).toBeUndefined();
    expect(bearerToken('Bearer abc!')).toBeUndefined();
    expect(bearerToken(undefined)).toBeUndefined();
  });
});
