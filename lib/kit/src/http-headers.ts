/** Headers that describe one connection and are never forwarded by a proxy (RFC 9110 §7.6.1). */
export const HOP_BY_HOP_HEADERS: ReadonlySet<string> = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/**
 * How many times a request carried a header, by its name in lower case. Node keeps only the first of two
 * `Authorization` (and other single-value) headers in `request.headers`: a caller that must refuse the
 * ambiguity counts `rawHeaders` (`[name, value, …]`).
 */
export function countRawHeader(rawHeaders: readonly string[], name: string): number {
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]?.toLowerCase() === name) count += 1;
  return count;
}

/** A header value node:http can write (tab, visible ASCII, space, Latin-1), as a JSON-schema `pattern`. */
export const HEADER_VALUE_PATTERN = '^[\\t\\x20-\\x7e\\x80-\\xff]*$';
const HEADER_VALUE = new RegExp(HEADER_VALUE_PATTERN);
// RFC 9110 §5.6.2: a method or a header name
const HTTP_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Whether `s` is an HTTP token (RFC 9110 §5.6.2): a valid method or header name. */
export function isHttpToken(s: string): boolean {
  return HTTP_TOKEN.test(s);
}

/** Whether node:http can write `s` as a header value; it throws `ERR_INVALID_CHAR` on anything else. */
export function isSendableHeaderValue(s: string): boolean {
  return HEADER_VALUE.test(s);
}
