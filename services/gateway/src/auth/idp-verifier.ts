import { decodeJwt, jwtVerify, type JWTPayload } from 'jose';
import type { Logger } from '@portcullis/kit';
import { JwksUnavailableError } from '../errors.js';
import { findDuplicateJwsMember } from './duplicate-member.js';
import type { IdpIssuer } from './idp-issuers.js';
import type { FreshnessBounds } from './jwks-freshness.js';
import { createJwksKeySet, type JwksFetchResult, type JwksKeySet } from './jwks-key-set.js';
import { CLOCK_TOLERANCE_SECONDS, COMPACT_JWS, toTokenError } from './jwt.js';

export interface IdpVerifierOptions {
  issuers: readonly IdpIssuer[];
  jwks: { timeoutMs: number; freshness: FreshnessBounds; refetchIntervalMs: number };
  log: Logger;
  now: () => number;
  onFetch: (issuer: string, result: JwksFetchResult) => void;
}

/** A verified token of an identity provider. */
export interface IdpToken {
  /** Every claim, for rate-limit descriptors. */
  payload: Readonly<JWTPayload>;
  sub: string;
  exp: number;
  /** Its `usernameClaim`, or `sub` when the token lacks it. */
  username: string;
  /** Until when (epoch ms) the keys it was checked with are fresh: a cached verdict must not outlive them. */
  keysFreshUntilMs: number;
}

export interface IdpVerifier {
  /**
   * The configured issuer a token says it comes from, unverified: its signature is then checked against
   * that issuer's keys only. Undefined for any other token (ours among them) or one that does not decode.
   */
  issuerOf(token: string): IdpIssuer | undefined;
  /**
   * @throws UnauthenticatedError (401) for a token that does not verify against the issuer's keys,
   * algorithms, audiences and clock; JwksUnavailableError (503) while its keys were never fetched.
   */
  verify(token: string, issuer: IdpIssuer): Promise<IdpToken>;
}

/** Tokens of the identity providers of `GATEWAY_JWT_ISSUERS`, checked against their JWKS. */
export function createIdpVerifier(o: IdpVerifierOptions): IdpVerifier {
  const keySets = new Map<string, JwksKeySet>(
    o.issuers.map((i) => [
      i.issuer,
      createJwksKeySet({
        url: i.jwksUrl,
        ...o.jwks,
        log: o.log,
        now: o.now,
        onFetch: (result) => o.onFetch(i.issuer, result),
      }),
    ]),
  );
  const byName = new Map(o.issuers.map((i) => [i.issuer, i]));

  return {
    issuerOf(token) {
      if (byName.size === 0) return undefined;
      try {
        const { iss } = decodeJwt(token);
        return typeof iss === 'string' ? byName.get(iss) : undefined;
      } catch {
        return undefined;
      }
    },

    async verify(token, issuer) {
      const keys = keySets.get(issuer.issuer);
      try {
        if (!keys) throw new Error('issuer not configured');
        if (!COMPACT_JWS.test(token)) throw new Error('not a compact JWS in base64url');
        // the algorithm is checked against the list before any key is looked up (or fetched)
        const { payload } = await jwtVerify(token, (header) => keys.keyFor(header), {
          issuer: issuer.issuer,
          audience: issuer.audiences,
          algorithms: issuer.algorithms,
          requiredClaims: ['exp', 'sub'],
          clockTolerance: CLOCK_TOLERANCE_SECONDS,
        });
        if (!Number.isSafeInteger(payload.exp)) throw new Error('exp: expected an integer');
        if (typeof payload.sub !== 'string' || payload.sub === '') throw new Error('sub: expected a string');
        const duplicate = findDuplicateJwsMember(token);
        if (duplicate !== undefined) throw new Error(`${duplicate}: named twice`);
        const name = payload[issuer.usernameClaim];
        return {
          payload,
          sub: payload.sub,
          exp: Number(payload.exp),
          username: typeof name === 'string' && name !== '' ? name : payload.sub,
          keysFreshUntilMs: keys.freshUntilMs(),
        };
      } catch (err: unknown) {
        if (err instanceof JwksUnavailableError) throw err;
        throw toTokenError(err);
      }
    },
  };
}
