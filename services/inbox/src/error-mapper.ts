import { ACCOUNTS_ERRORS } from '@portcullis/accounts';
import {
  createErrorMapper,
  InvalidArgumentError,
  UnauthenticatedError,
  UnavailableError,
  type ErrorClass,
} from '@portcullis/kit';
import { RateLimitedError, RateLimitUnavailableError } from '@portcullis/ratelimit-client';
import { INBOX_ERRORS } from './errors.js';

/**
 * Every error the inbox answers as itself, besides kit's edge errors: kit's shared ones it raises (a failed
 * store is 503 `UNAVAILABLE`), its own, lib/accounts' (a dead accounts Redis is 503
 * `ACCOUNTS_BACKEND_UNAVAILABLE`; its status-500 classes answer `INTERNAL`) and the rate limit's.
 */
export const ANSWERED_ERRORS: readonly ErrorClass[] = [
  InvalidArgumentError,
  UnauthenticatedError,
  UnavailableError,
  ...INBOX_ERRORS,
  ...ACCOUNTS_ERRORS,
  RateLimitedError,
  RateLimitUnavailableError,
];

/**
 * The inbox's one mapping from an error to a response: `{"error": <message>, "code": <code>}` with the
 * error's status and headers; anything else is 500 `INTERNAL` (logged with its stack by the kit's error
 * handler, never sent).
 */
export const toHttpError = createErrorMapper(ANSWERED_ERRORS);
