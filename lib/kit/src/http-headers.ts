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
