import type { FastifyRequest } from 'fastify';
import { readCookie } from '@portcullis/accounts';
import { CsrfError } from '../errors.js';

/** The header the inspector adds to every write; any non-empty value. */
export const CSRF_HEADER = 'x-inbox-csrf';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Writes that sign in or out: checked even without a cookie (login CSRF). */
const SESSION_PATHS = new Set(['/api/session', '/api/accounts']);

/**
 * CSRF protection for cookie-authenticated writes under `/api/` (receive URLs excepted: senders are other
 * sites by design). A write that carries the sign-in cookie, or signs in or up, must come with the
 * `X-Inbox-CSRF` header, which a cross-site form cannot send and a cross-site script cannot add without a
 * CORS preflight the inbox never grants; a browser's `Sec-Fetch-Site` and `Origin`, when sent, must say
 * same origin. Bearer-token calls without the cookie (the CLI, curl) are not affected.
 */
export function checkCsrf(request: FastifyRequest, o: { cookieName: string; publicUrl: string }): void {
  if (SAFE_METHODS.has(request.method)) return;
  const path = request.url.split('?', 1)[0] ?? '';
  if (!path.startsWith('/api/') || path.startsWith('/api/hook/')) return;
  const hasCookie = readCookie(request.headers.cookie, o.cookieName) !== undefined;
  if (!hasCookie && !SESSION_PATHS.has(path)) return;
  const site = request.headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none') {
    throw new CsrfError(`cross-site request refused (Sec-Fetch-Site: ${site})`);
  }
  const origin = request.headers.origin;
  if (origin !== undefined && !isSameOrigin(origin, request, o.publicUrl)) {
    throw new CsrfError('cross-origin request refused');
  }
  const header = request.headers[CSRF_HEADER];
  if (typeof header !== 'string' || header === '') {
    throw new CsrfError(`the ${CSRF_HEADER} header is required with the sign-in cookie`);
  }
}

/** The page's own origin: the Host it was asked by, or the public URL's. */
function isSameOrigin(origin: string, request: FastifyRequest, publicUrl: string): boolean {
  let host: string;
  try {
    host = new URL(origin).host;
  } catch {
    return false;
  }
  return host === request.headers.host || host === new URL(publicUrl).host;
}
