import { ACCOUNTS_ERRORS } from '@portcullis/accounts';
import {
  createErrorMapper,
  InvalidArgumentError,
  UnauthenticatedError,
  UnavailableError,
  type ErrorClass,
} from '@portcullis/kit';
import { RateLimitedError, RateLimitUnavailableError } from '@portcullis/ratelimit-client';
import { GATEWAY_ERRORS } from './errors.js';

/**
 * Every error the gateway answers as itself, besides kit's edge errors: its own, lib/accounts' (a dead
 * sessions Redis is 503 `ACCOUNTS_BACKEND_UNAVAILABLE`, as in the inbox), the rate limit's, and kit's shared
 * ones a handler may throw.
 */
export const ANSWERED_ERRORS: readonly ErrorClass[] = [
  ...GATEWAY_ERRORS,
  ...ACCOUNTS_ERRORS,
  RateLimitedError,
  RateLimitUnavailableError,
  InvalidArgumentError,
  UnauthenticatedError,
  UnavailableError,
];

/**
 * The gateway's one mapping from an error to a response: `{"error": <message>, "code": <code>}` with the
 * error's status and headers; anything else is 500 `{"error": "Internal Server Error", "code": "INTERNAL"}`
 * (logged with its stack by kit's error handler, never sent).
 */
export const toHttpError = createErrorMapper(ANSWERED_ERRORS);
