import { defineError, type ErrorClass } from '@portcullis/kit';

// The closed set of errors this package raises, besides kit's `InvalidArgumentError` (a caller passed a value
// this package cannot use: hasher parameters, a TTL, a list limit or cursor, keys). Callers branch on the class
// or `code`, never on the text; none of the messages carries a password, a hash or a session id.

/** `createUser` was given a user name that another account already holds (compared case-insensitively). */
export class UsernameTakenError extends defineError('USERNAME_TAKEN', 409, 'user name is taken') {}

/** A user name is empty, longer than 64 characters or has a character outside `[A-Za-z0-9_.@-]`. */
export class InvalidUsernameError extends defineError(
  'INVALID_USERNAME',
  400,
  'user name must be 1-64 characters from A-Z a-z 0-9 _ . @ -',
) {}

/** A new password is shorter than the minimum (8 characters). */
export class WeakPasswordError extends defineError(
  'WEAK_PASSWORD',
  400,
  (minChars: number) => `password must have at least ${minChars} characters`,
) {}

/** A stored password hash cannot be read: not `$scrypt$ln=…,r=…,p=…$<salt>$<hash>` or out of range: 500. */
export class PasswordHashError extends defineError('PASSWORD_HASH_INVALID') {}

/** The Redis behind the stores failed or could not be reached; the outcome of the operation is unknown. */
export class AccountsBackendError extends defineError('ACCOUNTS_BACKEND_UNAVAILABLE', 503) {}

/**
 * A write that carries the session cookie, or signs in, sent from another site or without the header the
 * service requires (`checkCsrf`). Both services answer it 403.
 */
export class CsrfError extends defineError('CSRF_CHECK_FAILED', 403) {}

/**
 * Every password-check slot is busy and the wait queue is full: refused at once, without hashing. Both
 * services answer it 503 with `Retry-After`: the process is briefly out of capacity, which is not the
 * caller's doing (a 429 would tell this client it sent too much).
 */
export class PasswordChecksBusyError extends defineError(
  'PASSWORD_CHECKS_BUSY',
  503,
  'too many password checks in progress, retry shortly',
) {
  /** What `Retry-After` says: about two scrypt derivations at the default parameters. */
  readonly retryAfterSeconds = 1;
  override readonly headers = { 'retry-after': String(this.retryAfterSeconds) };
}

/** This package's registry: each class with its code and status. */
export const ACCOUNTS_ERRORS: readonly ErrorClass[] = [
  UsernameTakenError,
  InvalidUsernameError,
  WeakPasswordError,
  PasswordHashError,
  AccountsBackendError,
  CsrfError,
  PasswordChecksBusyError,
];
