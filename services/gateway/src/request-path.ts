import { BadPathError, routeNotFound } from './errors.js';

/** A request's path below the base path, as routes match it and as an upstream Service is sent it. */
export interface RequestPath {
  /** The segments, each decoded, joined by `/`; no leading or trailing `/`. */
  relPath: string;
  /** The same segments as the client escaped them. */
  rawSegments: readonly string[];
  /** The raw query: `?…` or empty. */
  search: string;
}

/**
 * Splits a request target under `/<basePath>` after resolving its dot segments (`..`, `%2e%2e`, …) as a URL
 * parser does, so a path that leaves the base path is not under it: 404 `Route not found` (`routeNotFound`). Each segment is
 * decoded on its own, and one with an escaped `/` or `\` is refused (400 `BAD_PATH`): decoded,
 * it would be a separator to the router, or to a backend that decodes it and resolves `..` again. So is a
 * segment that is a dot segment once its `;` parameters are cut off (`..;`, `.;x`, `%2e%2e;a=b`): Tomcat,
 * Jetty and Spring drop the parameters first and then resolve it, leaving the backend's path. An escape
 * that is not UTF-8 is refused the same way.
 */
export function parseRequestPath(url: string, basePath: string): RequestPath {
  const { pathname, search } = isPlainTarget(url) ? splitTarget(url) : new URL(url, 'http://gateway');
  const base = `/${basePath}`;
  if (pathname !== base && !pathname.startsWith(`${base}/`)) throw routeNotFound();
  const rel = pathname.slice(base.length).replace(/^\/+|(?<!\/)\/+$/g, '');
  const rawSegments = rel === '' ? [] : rel.split('/');
  return { relPath: rawSegments.map(decodeSegment).join('/'), rawSegments, search };
}

/**
 * A target the URL parser returns as it is (most requests), so it need not run: an origin-form path of
 * characters it neither escapes nor rewrites (no `%`, `\\`, `#` or space), an optional query of the same plus
 * `%` and `?` but no `'`, and no `.` or `..` segment.
 */
const PLAIN_TARGET = /^\/(?!\/)[\w\-.~!$&'()*+,;=:@/]*(?:\?[\w\-.~!$&()*+,;=:@/?%]*)?$/;
const DOT_SEGMENT = /\/\.{1,2}(?:[/?]|$)/;

export function isPlainTarget(url: string): boolean {
  return PLAIN_TARGET.test(url) && !DOT_SEGMENT.test(url);
}

/** What the URL parser would make of a plain target: its path, and its query unless empty. */
export function splitTarget(url: string): { pathname: string; search: string } {
  const q = url.indexOf('?');
  if (q < 0) return { pathname: url, search: '' };
  const search = url.slice(q);
  return { pathname: url.slice(0, q), search: search === '?' ? '' : search };
}

function decodeSegment(raw: string): string {
  if (/%(2f|5c)/i.test(raw)) throw badPath('path has an escaped "/" or "\\" in a segment');
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch (err: unknown) {
    throw badPath('path has an escape that is not UTF-8', err);
  }
  // the URL parser already resolved the bare forms; only those with parameters are left
  const beforeParameters = decoded.split(';', 1)[0];
  if (beforeParameters === '.' || beforeParameters === '..')
    throw badPath('path has a dot segment with ";" parameters');
  return decoded;
}

function badPath(message: string, cause?: unknown): BadPathError {
  return new BadPathError(message, { cause });
}
