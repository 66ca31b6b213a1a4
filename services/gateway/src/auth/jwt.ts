import { randomUUID } from 'node:crypto';
import { SignJWT, errors, jwtVerify } from 'jose';
import type { UnauthenticatedError } from '@portcullis/kit';
import { authError } from '../errors.js';
import { findDuplicateJwsMember } from './duplicate-member.js';

export interface JwtOptions {
  /** The HMAC key, used as given (not base64-decoded). At least 32 bytes. */
  secret: string;
  ttlSeconds: number;
  issuer: string;
  audience: string;
}

export interface TokenClaims {
  sub: string;
  jti: string;
  exp: number;
  username: string;
  /** The refresh-token family the token was issued in (`fam`), revoked with it. */
  fam?: string;
}

const ALGORITHM = 'HS256';
/**
 * A JWS in compact form, base64url without padding as RFC 7515 has it. jose decodes with Node's
 * lenient decoder, which also reads `+`, `/` and `=`: a token is refused unless it is in the one form we sign.
 */
export const COMPACT_JWS = /^[\w-]+\.[\w-]+\.[\w-]+$/;
/** Replicas' clocks may disagree a little; a fresh token must not bounce off a pod one second behind. */
export const CLOCK_TOLERANCE_SECONDS = 30;

/**
 * HS256 tokens, pinned: no other algorithm is accepted (so no `none`, no RS/HS confusion), `exp` (an
 * integer), `sub` and `jti` are required, issuer and audience are checked, segments are base64url.
 */
export function createJwt(o: JwtOptions) {
  const key = new TextEncoder().encode(o.secret);
  return {
    async sign(
      account: { id: string; username: string },
      family?: string,
    ): Promise<{ token: string; claims: TokenClaims }> {
      const jti = randomUUID();
      const now = Math.floor(Date.now() / 1000);
      const exp = now + o.ttlSeconds;
      const token = await new SignJWT({ username: account.username, ...(family ? { fam: family } : {}) })
        .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
        .setSubject(account.id)
        .setJti(jti)
        .setIssuedAt(now)
        .setExpirationTime(exp)
        .setIssuer(o.issuer)
        .setAudience(o.audience)
        .sign(key);
      const claims: TokenClaims = { sub: account.id, jti, exp, username: account.username };
      return { token, claims: family ? { ...claims, fam: family } : claims };
    },

    /** @throws UnauthenticatedError (401) for anything but a valid, unexpired token of ours. */
    async verify(token: string): Promise<TokenClaims> {
      try {
        if (!COMPACT_JWS.test(token)) throw new Error('not a compact JWS in base64url');
        const { payload } = await jwtVerify(token, key, {
          algorithms: [ALGORITHM],
          issuer: o.issuer,
          audience: o.audience,
          requiredClaims: ['exp', 'sub', 'jti'],
          clockTolerance: CLOCK_TOLERANCE_SECONDS,
        });
        // jose takes any JSON number, and `1e400` parses to Infinity: a token that never expires
        if (!Number.isSafeInteger(payload.exp)) throw new Error('exp: expected an integer');
        const duplicate = findDuplicateJwsMember(token);
        if (duplicate !== undefined) throw new Error(`${duplicate}: named twice`);
        return {
          sub: String(payload.sub),
          jti: String(payload.jti),
          exp: Number(payload.exp),
          username: typeof payload.username === 'string' ? payload.username : '',
          ...(typeof payload.fam === 'string' ? { fam: payload.fam } : {}),
        };
      } catch (err: unknown) {
        throw toTokenError(err);
      }
    },
  };
}

export type Jwt = ReturnType<typeof createJwt>;

/** The 401 for a token that did not verify: `Token expired` for an expired one, else `Invalid token`. */
export function toTokenError(err: unknown): UnauthenticatedError {
  const message = err instanceof errors.JWTExpired ? 'Token expired' : 'Invalid token';
  return authError(message, { scheme: 'Bearer', detail: 'invalid_token', cause: err });
}

/**
 * The token of an `Authorization` header: `Bearer <token>` (any case, RFC 6750) and the original
 * module's `Bearer+<token>` form; anything else is undefined.
 */
export function bearerToken(header: string | undefined): string | undefined {
  const m =
    header === undefined
      ? null
      : /^bearer[ +]+([A-Za-z0-9_.~/=-][A-Za-z0-9_.~+/=-]*)\s*$/i.exec(header.trim());
  return m?.[1];
}
