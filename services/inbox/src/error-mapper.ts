import { ACCOUNTS_ERRORS } from '@portcullis/accounts';
import { createErrorMapper, KIT_ERRORS, type ErrorClass } from '@portcullis/kit';
import { RATELIMIT_CLIENT_ERRORS } from '@portcullis/ratelimit-client';
import { INBOX_ERRORS } from './errors.js';

/**
 * Every error the inbox answers as itself: kit's (a failed store is 503 `UNAVAILABLE`), lib/accounts' (a dead
 * accounts Redis is 503 `ACCOUNTS_BACKEND_UNAVAILABLE`), the rate limit's and its own. Their status-500
 * classes answer `INTERNAL`.
 */
export const ANSWERED_ERRORS: readonly ErrorClass[] = [
  ...KIT_ERRORS,
  ...ACCOUNTS_ERRORS,
  ...RATELIMIT_CLIENT_ERRORS,
  ...INBOX_ERRORS,
];

/**
 * The inbox's one mapping from an error to a response: `{"error": <message>, "code": <code>}` with the
 * error's status and headers; anything else is 500 `INTERNAL` (logged with its stack by the kit's error
 * handler, never sent).
 */
export const toHttpError = createErrorMapper(ANSWERED_ERRORS);
