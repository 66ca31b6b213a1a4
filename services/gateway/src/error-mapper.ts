import { ACCOUNTS_ERRORS } from '@portcullis/accounts';
import { createErrorMapper, KIT_ERRORS, type ErrorClass } from '@portcullis/kit';
import { RATELIMIT_CLIENT_ERRORS } from '@portcullis/ratelimit-client';
import { GATEWAY_ERRORS } from './errors.js';

/**
 * Every error the gateway answers as itself: kit's (the edge's, and the shared ones a handler may throw),
 * lib/accounts' (a dead sessions Redis is 503 `ACCOUNTS_BACKEND_UNAVAILABLE`, as in the inbox), the rate
 * limit's and its own. Their status-500 classes answer `INTERNAL`.
 */
export const ANSWERED_ERRORS: readonly ErrorClass[] = [
  ...KIT_ERRORS,
  ...ACCOUNTS_ERRORS,
  ...RATELIMIT_CLIENT_ERRORS,
  ...GATEWAY_ERRORS,
];

/**
 * The gateway's one mapping from an error to a response: `{"error": <message>, "code": <code>}` with the
 * error's status and headers; anything else is 500 `{"error": "Internal Server Error", "code": "INTERNAL"}`
 * (logged with its stack by kit's error handler, never sent).
 */
export const toHttpError = createErrorMapper(ANSWERED_ERRORS);
