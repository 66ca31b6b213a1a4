import { Redis } from 'ioredis';
import type { Logger, RedisConnectionEvents } from '@portcullis/kit';
import { FAIL_FAST_OPTIONS } from '@portcullis/redis';
import { createMemoryAccountStore } from './memory-accounts.js';
import { createMemoryTokenDenylist } from './memory-denylist.js';
import { createMemorySessionStore } from './memory-sessions.js';
import {
  DEFAULT_PASSWORD_CHECK_LIMITS,
  limitPasswordChecks,
  type PasswordCheckLimits,
} from './password-check-limit.js';
import { createScryptHasher, type PasswordHasher } from './password-hasher.js';
import { createRedisAccountStore } from './redis-accounts.js';
import { createRedisTokenDenylist } from './redis-denylist.js';
import { createRedisSessionStore } from './redis-sessions.js';
import type { AccountStore, Clock, SessionStore, TokenDenylist } from './types.js';

export const DEFAULT_KEY_PREFIX = 'acct:';

export interface AccountsBackendOptions {
  /** `redis://…`, `rediss://…` or `host:port`; in-memory stores (local mode) when omitted. */
  redisUrl?: string;
  /** Start of every Redis key; `acct:` by default. */
  prefix?: string;
  /** scrypt with the production parameters (ln=17, r=8, p=1) by default. */
  hasher?: PasswordHasher;
  /** How many hashes and verifications run and wait at once (`DEFAULT_PASSWORD_CHECK_LIMITS` by default). */
  passwordChecks?: PasswordCheckLimits;
  /** Receives Redis connection errors (once per distinct message); calls fail with `AccountsBackendError`. */
  log?: Logger;
  now?: Clock;
}

export interface AccountsBackend {
  kind: 'redis' | 'memory';
  accounts: AccountStore;
  sessions: SessionStore;
  denylist: TokenDenylist;
  /** The Redis connection's status and events (readiness follows them); absent for memory stores. */
  connection?: RedisConnectionEvents;
  /** Closes the Redis connection; the stores must not be used afterwards. */
  close(): Promise<void>;
}

/** Redis stores sharing one connection when `redisUrl` is given, else memory stores. */
export function createAccountsBackend(options: AccountsBackendOptions = {}): AccountsBackend {
  const hasher = limitPasswordChecks(
    options.hasher ?? createScryptHasher(),
    options.passwordChecks ?? DEFAULT_PASSWORD_CHECK_LIMITS,
  );
  const now = options.now ?? Date.now;
  if (options.redisUrl === undefined || options.redisUrl === '') {
    return {
      kind: 'memory',
      accounts: createMemoryAccountStore({ hasher, now }),
      sessions: createMemorySessionStore({ now }),
      denylist: createMemoryTokenDenylist({ now }),
      close: () => Promise.resolve(),
    };
  }
  const redis = new Redis(options.redisUrl, { ...FAIL_FAST_OPTIONS });
  const log = options.log?.child({ component: 'accounts-redis' });
  let lastError = '';
  redis.on('ready', () => (lastError = ''));
  redis.on('error', (err: Error) => {
    if (err.message !== lastError) log?.warn({ err }, 'redis connection error');
    lastError = err.message;
  });
  const prefix = options.prefix ?? DEFAULT_KEY_PREFIX;
  return {
    kind: 'redis',
    accounts: createRedisAccountStore({ redis, prefix, hasher, now }),
    sessions: createRedisSessionStore({ redis, prefix, now }),
    denylist: createRedisTokenDenylist({ redis, prefix, now }),
    connection: redis,
    async close() {
      try {
        await redis.quit();
      } catch {
        // Already closed or never connected: nothing left to release.
        redis.disconnect();
      }
    },
  };
}
