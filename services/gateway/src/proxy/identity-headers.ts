/** The headers that name the caller to an upstream Service: only the gateway sets them. */
const IDENTITY_HEADERS = new Set(['x-user-id', 'x-user-name']);

/**
 * Whether a request header is an identity header in any spelling: `X_User_Id` too, which CGI and WSGI
 * backends read as `X-User-Id` (both become `HTTP_X_USER_ID`).
 */
export function isIdentityHeader(name: string): boolean {
  return IDENTITY_HEADERS.has(name.toLowerCase().replaceAll('_', '-'));
}

/**
 * An identity header's value: visible ASCII but `%` as it is, every other character (spaces, controls,
 * `%`, anything outside ASCII) as the percent-encoded bytes of its UTF-8, so `日本 bot` is
 * `%E6%97%A5%E6%9C%AC%20bot` and `decodeURIComponent` gives the name back. A lone surrogate becomes U+FFFD.
 */
export function encodeIdentityValue(value: string): string {
  return value.replace(/[^\x21-\x24\x26-\x7e]/gu, (c) =>
    [...Buffer.from(c, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
  );
}
