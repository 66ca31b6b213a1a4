import { PortcullisError } from '@portcullis/kit';

// The closed set of errors this package raises. Callers branch on the class or `code`, never on the text;
// none of the messages carries a password, a hash or a session id.

/** `createUser` was given a user name that another account already holds (compared case-insensitively). */
export class UsernameTakenError extends PortcullisError {
  readonly code = 'USERNAME_TAKEN';

  constructor() {
    super('user name is taken');
  }
}

/** A user name is empty, longer than 64 characters or has a character outside `[A-Za-z0-9_.@-]`. */
export class InvalidUsernameError extends PortcullisError {
  readonly code = 'INVALID_USERNAME';

  constructor() {
    super('user name must be 1-64 characters from A-Z a-z 0-9 _ . @ -');
  }
}

/** A new password is shorter than the minimum (8 characters). */
export class WeakPasswordError extends PortcullisError {
  readonly code = 'WEAK_PASSWORD';

  constructor(minChars: number) {
    super(`password must have at least ${minChars} characters`);
  }
}

/** A stored password hash cannot be read: not `$scrypt$ln=…,r=…,p=…$<salt>$<hash>` or out of range. */
export class PasswordHashError extends PortcullisError {
  readonly code = 'PASSWORD_HASH_INVALID';
}

/** A caller passed a value this package cannot use: hasher parameters, a TTL, a list limit or cursor, keys. */
export class InvalidArgumentError extends PortcullisError {
  readonly code = 'INVALID_ARGUMENT';
}

/** The Redis behind the stores failed or could not be reached; the outcome of the operation is unknown. */
export class AccountsBackendError extends PortcullisError {
  readonly code = 'ACCOUNTS_BACKEND_UNAVAILABLE';
}

/**
 * A write that carries the session cookie, or signs in, sent from another site or without the header the
 * service requires (`checkCsrf`). Both services answer it 403.
 */
export class CsrfError extends PortcullisError {
  readonly code = 'CSRF_CHECK_FAILED';
}

/**
 * Every password-check slot is busy and the wait queue is full: refused at once, without hashing. Both
 * services answer it 503 with `Retry-After`: the process is briefly out of capacity, which is not the
 * caller's doing (a 429 would tell this client it sent too much).
 */
export class PasswordChecksBusyError extends PortcullisError {
  readonly code = 'PASSWORD_CHECKS_BUSY';
  /** What `Retry-After` says: about two scrypt derivations at the default parameters. */
  readonly retryAfterSeconds = 1;

  constructor() {
    super('too many password checks in progress, retry shortly');
  }
}
