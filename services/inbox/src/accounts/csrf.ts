import type { FastifyRequest } from 'fastify';
import { checkCsrf, type CsrfPolicy } from '@portcullis/accounts';

/** The header the inspector adds to every write; any non-empty value. */
export const CSRF_HEADER = 'x-inbox-csrf';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * How lib/accounts' CSRF rule treats the route: `sets-cookie` (sign-in, sign-up) is checked even without
     * a cookie; `exempt` (the receive URLs) never, since other sites send to them by design.
     */
    csrf?: 'sets-cookie' | 'exempt';
  }
}

/**
 * The platform's CSRF rule on the route fastify matched (so `/%61pi/…` is judged as `/api/…`), with the
 * inspector's `X-Inbox-CSRF` header required: a cross-site form cannot send it, and a cross-site script
 * cannot add it without a CORS preflight the inbox never grants.
 */
export function checkInboxCsrf(request: FastifyRequest, policy: CsrfPolicy): void {
  const csrf = request.routeOptions.config.csrf;
  if (csrf === 'exempt') return;
  checkCsrf(request, policy, { setsCookie: csrf === 'sets-cookie' });
}
