import { randomBytes } from 'node:crypto';

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
