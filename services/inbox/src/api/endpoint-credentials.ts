import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** 128 random bits as 22 base64url characters: matches lib/config's `ENDPOINT_ID`. */
export function createEndpointId(): string {
  return randomText(16);
}

/** 256 random bits as 43 base64url characters: an endpoint's read and management token. */
export function createEndpointToken(): string {
  return randomText(32);
}

/**
 * Random base64url text that never starts with `-`, which a command line would read as an option
 * (`inbox tail --token -Lx…`). Redrawing the 1 in 64 such values costs under 0.03 bits.
 */
function randomText(bytes: number): string {
  for (;;) {
    const text = randomBytes(bytes).toString('base64url');
    if (!text.startsWith('-')) return text;
  }
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
