import {
  AccountsBackendError,
  CsrfError,
  InvalidUsernameError,
  PasswordChecksBusyError,
  UsernameTakenError,
  WeakPasswordError,
} from '@portcullis/accounts';
import type { ErrorMapper } from '@portcullis/kit';
import { InboxError } from './errors.js';

/** The account store's refusals, by class: the account's own wording and code. */
const ACCOUNT_ERRORS = [
  [UsernameTakenError, 409],
  [InvalidUsernameError, 400],
  [WeakPasswordError, 400],
  [AccountsBackendError, 503],
  [CsrfError, 403],
] as const;

/** fastify's own 4xx errors (a JSON body that does not parse, say), by status. */
const FRAMEWORK_CODES: Readonly<Record<number, string>> = {
  413: 'BODY_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
};

/**
 * The inbox's one mapping from an error to a response: `{"error": <message>, "code": <code>}` with the
 * error's status. fastify's client errors keep their status; anything else is 500 `INTERNAL` (logged with
 * its stack by the kit's error handler, never sent).
 */
export const toHttpError: ErrorMapper = (err) => {
  if (err instanceof InboxError) {
    return {
      statusCode: err.statusCode,
      body: { error: err.message, code: err.code },
      headers: { ...err.headers },
    };
  }
  // the process is briefly out of password-check capacity: a retry soon succeeds
  if (err instanceof PasswordChecksBusyError) {
    return {
      statusCode: 503,
      body: { error: err.message, code: err.code },
      headers: { 'retry-after': String(err.retryAfterSeconds) },
    };
  }
  for (const [type, statusCode] of ACCOUNT_ERRORS) {
    if (err instanceof type) return { statusCode, body: { error: err.message, code: err.code } };
  }
  const status = (err as { statusCode?: unknown } | null)?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const message = err instanceof Error ? err.message : 'bad request';
    return {
      statusCode: status,
      body: { error: message, code: FRAMEWORK_CODES[status] ?? 'INVALID_ARGUMENT' },
    };
  }
  return { statusCode: 500, body: { error: 'Internal Server Error', code: 'INTERNAL' } };
};
