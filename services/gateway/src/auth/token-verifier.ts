import { createHash } from 'node:crypto';
import { deepFreeze } from '@portcullis/kit';
import { APP_CALLER_PREFIX } from '../apps/api-key-auth.js';
import type { IdpVerifier } from './idp-verifier.js';
import type { Jwt } from './jwt.js';
import type { ExpiringCache } from '../expiring-cache.js';

/** A token whose signature, issuer, audience and clock checked out: what the cache holds. */
export interface VerifiedToken {
  /** The subject: our token's platform account id, or an identity provider's user. */
  sub: string;
  exp: number;
  /**
   * What `DELETE /auth` revokes and each request asks about: our `jti` (the refresh-token family's id for a
   * token issued in one, so revoking the family refuses all its tokens), or an issuer's token's SHA-256.
   */
  revocationId: string;
  /** What rate-limit `claim` descriptors read: ours `sub`, `jti`, `exp`, `username`; an issuer's, all. */
  claims: Readonly<Record<string, unknown>>;
  /** Set for an identity provider's token: the caller it names, who has no platform account. */
  external?: { id: string; username: string };
}

export interface TokenVerifierOptions {
  jwt: Jwt;
  idp: IdpVerifier;
  cache: ExpiringCache<VerifiedToken>;
}

export interface TokenVerifier {
  /**
   * Checks a token once per its lifetime: a verdict is cached by the token's hash until its `exp` (and,
   * for an issuer's token, no longer than that issuer's keys stay fresh). Revocation and the account are
   * not part of the verdict: the caller asks about them on every request.
   * @throws UnauthenticatedError (401); JwksUnavailableError (503).
   */
  verify(token: string): Promise<VerifiedToken>;
}

/** Put in front of an identity provider's subject that would otherwise start like an application's id. */
const IDP_ESCAPE_PREFIX = 'idp:';

/**
 * An identity provider's user's caller id: its `sub`, unless that starts with `app:` (an API key's
 * application, `APP_CALLER_PREFIX`) or `idp:`, which then get `idp:` in front. One-to-one, and never an
 * application's id: no token can pass for an application in `X-User-Id` or share its rate-limit key.
 */
export function idpCallerId(sub: string): string {
  return sub.startsWith(APP_CALLER_PREFIX) || sub.startsWith(IDP_ESCAPE_PREFIX)
    ? `${IDP_ESCAPE_PREFIX}${sub}`
    : sub;
}

export function createTokenVerifier(o: TokenVerifierOptions): TokenVerifier {
  return {
    async verify(token) {
      const hash = createHash('sha256').update(token).digest('base64url');
      const cached = o.cache.get(hash);
      if (cached) return cached;
      const issuer = o.idp.issuerOf(token);
      if (issuer) {
        const t = await o.idp.verify(token, issuer);
        // frozen: one cached verdict is handed to every request that carries the token
        const verified: VerifiedToken = deepFreeze({
          sub: t.sub,
          exp: t.exp,
          revocationId: hash,
          claims: t.payload,
          external: { id: idpCallerId(t.sub), username: t.username },
        });
        o.cache.set(hash, verified, Math.min(t.exp * 1000, t.keysFreshUntilMs));
        return verified;
      }
      const claims = await o.jwt.verify(token);
      const verified: VerifiedToken = deepFreeze({
        sub: claims.sub,
        exp: claims.exp,
        revocationId: claims.fam ?? claims.jti,
        claims: { ...claims },
      });
      o.cache.set(hash, verified, claims.exp * 1000);
      return verified;
    },
  };
}
