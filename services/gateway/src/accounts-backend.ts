import { createAccountsBackend, type AccountsBackend, type PasswordHasher } from '@portcullis/accounts';
import { trackRedis, type Logger, type Readiness } from '@portcullis/kit';
import { registerRedisMetrics } from '@portcullis/redis';
import type { Registry } from 'prom-client';
import type { Settings } from './settings.js';

/**
 * Accounts, sessions and the token denylist: in Redis (`GATEWAY_REDIS_*`), which `/readyz` then waits for
 * and `/metrics` reports on, or in memory (the accounts in `GATEWAY_ACCOUNTS_FILE` when set).
 */
export function createGatewayAccounts(
  settings: Readonly<Settings>,
  deps: {
    readiness: Readiness;
    registry: Registry;
    log: Logger;
    passwordHasher?: PasswordHasher | undefined;
  },
): AccountsBackend {
  const backend = createAccountsBackend({
    redis: settings.redis,
    accountsFile: settings.accountsFile,
    ...(deps.passwordHasher ? { hasher: deps.passwordHasher } : {}),
    passwordChecks: settings.passwordChecks,
    log: deps.log,
  });
  if (backend.connection) trackRedis(deps.readiness.health, 'redis:accounts', backend.connection);
  if (backend.redisPool) registerRedisMetrics(deps.registry, 'accounts', backend.redisPool);
  return backend;
}
