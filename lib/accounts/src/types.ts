// The interfaces the gateway and the inbox program against; Redis and memory implementations sit beside
// them and never import each other.

/** Milliseconds since the epoch; injected so tests can move time. */
export type Clock = () => number;

/** A platform account as callers see it: never the password hash. */
export interface Account {
  /** Random, URL-safe (base64url of 16 bytes): safe in paths, cookies and JWT `sub`. */
  id: string;
  /** As given at sign-up; uniqueness ignores case. */
  username: string;
  /** ISO 8601, UTC. */
  createdAt: string;
}

export interface NewAccount {
  username: string;
  password: string;
}

export interface ListOptions {
  /** 1–1000; 50 when omitted. */
  limit?: number;
  /** `nextCursor` of the previous page. */
  cursor?: string;
}

export interface AccountPage {
  /** Ordered by lower-case user name. */
  accounts: Account[];
  /** Pass back as `cursor` for the next page; undefined on the last page. */
  nextCursor: string | undefined;
}

export interface AccountStore {
  /**
   * Throws `InvalidUsernameError`, `WeakPasswordError`, or `UsernameTakenError` when the name is held in
   * any case; of two concurrent sign-ups of one name exactly one wins.
   */
  createUser(input: NewAccount): Promise<Account>;
  /**
   * The account when the password matches, else undefined: an unknown or invalid name costs the same key
   * derivation as a wrong password. A match under outdated hash parameters re-hashes the password.
   */
  verifyCredentials(username: string, password: string): Promise<Account | undefined>;
  getById(id: string): Promise<Account | undefined>;
  /** Throws `InvalidArgumentError` for a bad limit or cursor. */
  list(options?: ListOptions): Promise<AccountPage>;
  /** True when an account was deleted. Its sessions are the caller's to end (`SessionStore.destroyAllFor`). */
  deleteUser(id: string): Promise<boolean>;
}

export interface Session {
  /** 32 random bytes, base64url (43 characters): the cookie value, signed or not. */
  id: string;
  accountId: string;
  /** ISO 8601, UTC. */
  expiresAt: string;
}

export interface SessionOptions {
  /** Seconds until the session expires unless touched; positive, fractions allowed (ms precision). */
  ttlSeconds: number;
}

export interface SessionStore {
  /** Throws `InvalidArgumentError` for a TTL that is not a positive number. */
  create(accountId: string, options: SessionOptions): Promise<Session>;
  /** Undefined when the id is unknown, malformed or expired. */
  get(id: string): Promise<Session | undefined>;
  /** Sliding expiry: the session now ends `ttlSeconds` from now. Undefined (and no effect) when it is gone. */
  touch(id: string, ttlSeconds: number): Promise<Session | undefined>;
  /** True when a live session was ended. */
  destroy(id: string): Promise<boolean>;
  /** Ends every session of the account (log out everywhere, deleted account); returns how many there were. */
  destroyAllFor(accountId: string): Promise<number>;
}

export interface TokenDenylist {
  /**
   * Keeps `jti` until `expiresAtSec` (the token's `exp`, epoch seconds), after which the token is refused
   * anyway; a verifier with clock tolerance should pass `exp` plus that tolerance. An expiry already past
   * is a no-op.
   */
  revoke(jti: string, expiresAtSec: number): Promise<void>;
  isRevoked(jti: string): Promise<boolean>;
}
