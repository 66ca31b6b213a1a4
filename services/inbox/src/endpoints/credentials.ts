import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** 128 random bits as 22 base64url characters: matches lib/config's `ENDPOINT_ID`. */
export function createEndpointId(): string {
  return randomBytes(16).toString('base64url');
}

/** 256 random bits as 43 base64url characters: an endpoint's read and management token. */
export function createEndpointToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Hex SHA-256: all the store keeps of a token. A token has 256 bits, so no slow hash is needed. */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

const NO_HASH = Buffer.alloc(32);

/**
 * Whether `token` hashes to `tokenSha256`, in time independent of where they differ. An empty hash
 * (no token, or no endpoint) never matches but costs the same.
 */
export function isTokenMatch(token: string, tokenSha256: string): boolean {
  const expected = /^[0-9a-f]{64}$/.test(tokenSha256) ? Buffer.from(tokenSha256, 'hex') : NO_HASH;
  const equal = timingSafeEqual(createHash('sha256').update(token).digest(), expected);
  return equal && expected !== NO_HASH;
}
