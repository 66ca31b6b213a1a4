import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Hex SHA-256: all a store keeps of a secret token (an admin token, an endpoint's token). Tokens this is
 * for have 128 bits or more, so no slow hash is needed.
 */
export function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

const NO_HASH = Buffer.alloc(32);
const SHA256_HEX = /^[0-9a-f]{64}$/;

/**
 * Whether `token` hashes to `tokenSha256` (hex, as `hashToken` gives), in time independent of where they
 * differ: both sides are 32-byte digests, compared without an early exit. A hash that is not 64 hex digits
 * (`''`: no token configured) never matches but costs the same.
 */
export function isTokenHashMatch(token: string, tokenSha256: string): boolean {
  const expected = SHA256_HEX.test(tokenSha256) ? Buffer.from(tokenSha256, 'hex') : NO_HASH;
  const equal = timingSafeEqual(createHash('sha256').update(token).digest(), expected);
  return equal && expected !== NO_HASH;
}
