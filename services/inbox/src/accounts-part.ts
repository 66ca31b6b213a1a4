import { createAccountsBackend, type AccountsBackend, type PasswordHasher } from '@portcullis/accounts';
import { trackRedis, type Logger, type Part, type Readiness } from '@portcullis/kit';
import { registerRedisMetrics } from '@portcullis/redis';
import type { Registry } from 'prom-client';
import { createWebSessions, type WebSessions } from './accounts/web-sessions.js';
import type { Settings } from './settings.js';

export interface AccountsPartOptions {
  log: Logger;
  /** Where the accounts' Redis clients' metrics go. */
  registry: Registry;
  /** Names the accounts' Redis connection (`redis:accounts`) while it is down. */
  readiness: Readiness;
  /** Production scrypt parameters unless given. */
  passwordHasher?: PasswordHasher | undefined;
}

export interface AccountsPart extends Part {
  readonly backend: AccountsBackend;
  readonly sessions: WebSessions;
}

/** The inspector's sign-in: accounts and sessions on the inbox's Redis (or in memory), the part closing them. */
export function createAccountsPart(settings: Readonly<Settings>, o: AccountsPartOptions): AccountsPart {
  const backend = createAccountsBackend({
    redis: settings.redis,
    ...(o.passwordHasher ? { hasher: o.passwordHasher } : {}),
    passwordChecks: settings.passwordChecks,
    log: o.log,
  });
  if (backend.redisPool) registerRedisMetrics(o.registry, 'accounts', backend.redisPool);
  if (backend.connection) trackRedis(o.readiness.health, 'redis:accounts', backend.connection);
  const sessions = createWebSessions({ backend, settings: settings.accounts, log: o.log });
  return { name: 'accounts', backend, sessions, start: () => undefined, close: () => backend.close() };
}
