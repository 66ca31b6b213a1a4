import type { FastifyRequest } from 'fastify';
import {
  countRawHeader,
  hashToken,
  isTokenHashMatch,
  UnauthenticatedError,
  type Logger,
} from '@portcullis/kit';
import { bearerToken } from './auth/jwt.js';
import { AdminDisabledError } from './errors.js';

/** The admin API's `WWW-Authenticate`: its own realm, so a client never offers it a user's token. */
export const ADMIN_CHALLENGE = 'Bearer realm="admin"';

export interface AdminToken {
  checkAdminToken(request: FastifyRequest): void;
  /** Whether the request carries the admin token, as `checkAdminToken` would grant it; no log, no throw. */
  isAdminRequest(request: FastifyRequest): boolean;
}

/**
 * The one check of `GATEWAY_ADMIN_TOKEN` (`token`; empty: there is no admin). Throws `404 ADMIN_DISABLED`
 * while the token is empty, whatever is sent; otherwise anything but exactly one
 * `Authorization: Bearer <token>` (none, another scheme, a wrong token, two headers) is the same
 * `401 UNAUTHENTICATED` `admin token required` with `WWW-Authenticate: Bearer realm="admin"`, so a caller
 * learns nothing about what it sent. Refusals of a token that was sent are logged at warn, granted requests
 * at info (the admin API's audit trail); never the token.
 */
export function createAdminToken(token: string, log: Logger): AdminToken {
  const expected = token === '' ? undefined : hashToken(token);
  const refusal = (request: FastifyRequest): string | undefined => {
    // node keeps the first of two Authorization headers; a proxy in front may have read the other
    const headers = countRawHeader(request.raw.rawHeaders, 'authorization');
    if (headers === 0) return 'missing';
    if (headers > 1) return 'two headers';
    const sent = bearerToken(request.headers.authorization);
    if (sent === undefined) return 'not bearer';
    return expected && isTokenHashMatch(sent, expected) ? undefined : 'wrong';
  };
  return {
    checkAdminToken(request) {
      const fields = { method: request.method, path: request.url.split('?')[0], ip: request.ip };
      if (!expected) {
        log.debug(fields, 'admin API off');
        throw new AdminDisabledError();
      }
      const reason = refusal(request);
      if (reason === undefined) {
        log.info(fields, 'admin request');
        return;
      }
      if (reason === 'missing') log.debug({ ...fields, reason }, 'admin token refused');
      else log.warn({ ...fields, reason }, 'admin token refused');
      throw new UnauthenticatedError('admin token required', { challenge: ADMIN_CHALLENGE });
    },
    isAdminRequest: (request) => expected !== undefined && refusal(request) === undefined,
  };
}
