import type { IncomingHttpHeaders } from 'node:http';
import { readCookie } from './cookie-sessions.js';
import { CsrfError } from './errors.js';

// The platform's one CSRF rule, for every write that carries the session cookie or sets it (sign-in,
// sign-up), in the gateway and the inbox alike. What it reads is the method and the headers, never the
// path: each service decides on the request it routed whether the request sets the cookie.

export interface CsrfPolicy {
  /** The session cookie's name: a write that carries it is checked. */
  cookieName: string;
  /** Origins (`https://app.example`) besides the request's own host that may send such writes. */
  allowedOrigins: readonly string[];
  /** A header every checked write must carry (any non-empty value); none required when undefined. */
  requiredHeader?: string;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Throws `CsrfError` for an unsafe-method request that carries the session cookie (or, with `setsCookie`,
 * signs in: login CSRF) when the browser says it comes from another site: a `Sec-Fetch-Site` other than
 * `same-origin` or `none`, or an `Origin` (`null` included) that is neither the request's `Host` (HTTP/2's
 * `:authority`) nor an allowed origin; a listed origin passes whatever `Sec-Fetch-Site` says (CORS with
 * credentials). Then the required header, if any. Requests without the cookie that set none (bearer tokens, webhooks) pass.
 */
export function checkCsrf(
  request: { method: string; headers: IncomingHttpHeaders },
  policy: CsrfPolicy,
  o: { setsCookie: boolean },
): void {
  if (SAFE_METHODS.has(request.method)) return;
  const { headers } = request;
  if (!o.setsCookie && readCookie(headers.cookie, policy.cookieName) === undefined) return;
  const origin = headers.origin;
  const from = origin === undefined ? undefined : parseOrigin(origin);
  const listed = from !== undefined && policy.allowedOrigins.includes(from.origin);
  const site = headers['sec-fetch-site'];
  if (site !== undefined && site !== 'same-origin' && site !== 'none' && !listed) {
    throw new CsrfError(`cross-site request refused (Sec-Fetch-Site: ${site})`);
  }
  // HTTP/2 names the host in its `:authority` pseudo-header instead
  const authority = headers[':authority'];
  const host = headers.host ?? (typeof authority === 'string' ? authority : undefined);
  if (origin !== undefined && !listed && (from === undefined || from.host !== host)) {
    throw new CsrfError('cross-origin request refused');
  }
  const required = policy.requiredHeader;
  if (required === undefined) return;
  const value = headers[required];
  if (typeof value !== 'string' || value === '') {
    throw new CsrfError(`the ${required} header is required with the sign-in cookie`);
  }
}

/** The Origin header as a URL; undefined for `null` and anything else unparsable. */
function parseOrigin(origin: string): URL | undefined {
  try {
    return new URL(origin);
  } catch {
    return undefined;
  }
}
