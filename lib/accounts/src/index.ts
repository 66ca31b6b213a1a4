export {
  ACCOUNTS_ERRORS,
  AccountsBackendError,
  CsrfError,
  InvalidUsernameError,
  PasswordChecksBusyError,
  PasswordHashError,
  UsernameTakenError,
  WeakPasswordError,
} from './errors.js';
export type {
  Account,
  AccountPage,
  AccountStore,
  Clock,
  ListOptions,
  NewAccount,
  Session,
  SessionOptions,
  SessionStore,
  TokenDenylist,
} from './types.js';
export {
  createScryptHasher,
  scryptMemoryBytes,
  DEFAULT_SCRYPT_OPTIONS,
  type PasswordHasher,
  type ScryptHasherOptions,
} from './password-hasher.js';
export {
  DEFAULT_PASSWORD_CHECK_LIMITS,
  limitPasswordChecks,
  type PasswordCheckLimits,
} from './password-check-limit.js';
export { formatScryptHash, parseScryptHash, type ScryptHash, type ScryptParams } from './scrypt-phc.js';
export { signValue, unsignValue, MIN_SIGNING_KEY_CHARS } from './signed-value.js';
export {
  CookieSessions,
  DEFAULT_SESSION_COOKIE,
  isSecureCookie,
  readCookie,
  type CookieSession,
  type CookieSessionOptions,
  type SecureCookieMode,
  type SignedIn,
} from './cookie-sessions.js';
export { checkCsrf, type CsrfPolicy } from './csrf-check.js';
export { MIN_PASSWORD_CHARS, isValidUsername } from './account-rules.js';
export { createFileAccountStore, type FileAccountStoreOptions } from './file-accounts.js';
export { createMemoryAccountStore, type MemoryAccountStoreOptions } from './memory-accounts.js';
export { createMemorySessionStore, type MemorySessionStoreOptions } from './memory-sessions.js';
export { createMemoryTokenDenylist, type MemoryTokenDenylistOptions } from './memory-denylist.js';
export { createRedisAccountStore, type RedisAccountStoreOptions } from './redis-accounts.js';
export { createRedisSessionStore, type RedisSessionStoreOptions } from './redis-sessions.js';
export { createRedisTokenDenylist, type RedisTokenDenylistOptions } from './redis-denylist.js';
export {
  createAccountsBackend,
  DEFAULT_KEY_PREFIX,
  type AccountsBackend,
  type AccountsBackendOptions,
} from './backend.js';
