import type { Logger, RedisConnectionEvents } from '@portcullis/kit';
import {
  createRedisPool,
  FAIL_FAST_POLICY,
  toSingleConnection,
  type RedisConnection,
  type RedisPool,
} from '@portcullis/redis';
import { createFileAccountStore } from './file-accounts.js';
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
  /** The Redis deployment (`readRedisConnection`); in-memory stores (local mode) when its URL is empty. */
  redis?: RedisConnection;
  /** Short for a single server: `redis://…`, `rediss://…` or `host:port` (tools and tests). */
  redisUrl?: string;
  /**
   * Without Redis: the JSON file that keeps the accounts (`createFileAccountStore`; sessions and the denylist
   * stay in memory), so they outlive a restart and `hack/create-user.ts` can add one. Memory when empty.
   */
  accountsFile?: string;
  /**
   * Start of every Redis key; `acct:` by default. On a cluster it is put in a hash tag (`{acct:}`), so every
   * accounts key hashes to one slot and the scripts may touch an account, its name and the index together.
   */
  prefix?: string;
  /** scrypt with the production parameters (ln=17, r=8, p=1) by default. */
  hasher?: PasswordHasher;
  /** How many hashes and verifications run and wait at once (`DEFAULT_PASSWORD_CHECK_LIMITS` by default). */
  passwordChecks?: PasswordCheckLimits;
  /** Receives Redis connection errors (once per outage); calls fail with `AccountsBackendError`. */
  log?: Logger;
  now?: Clock;
}

export interface AccountsBackend {
  kind: 'redis' | 'file' | 'memory';
  /** The Redis clients, for their metrics (`registerRedisMetrics`); none in memory mode. */
  redisPool: RedisPool | undefined;
  /** The commands' Redis connection, its status and events (readiness follows them); absent for memory stores. */
  connection?: RedisConnectionEvents;
  accounts: AccountStore;
  sessions: SessionStore;
  denylist: TokenDenylist;
  /** Closes the Redis connection; the stores must not be used afterwards. */
  close(): Promise<void>;
}

/**
 * Redis stores sharing one connection when `redis` or `redisUrl` names a server, else memory stores (the
 * accounts in `accountsFile` when given).
 */
export function createAccountsBackend(options: AccountsBackendOptions = {}): AccountsBackend {
  const hasher = limitPasswordChecks(
    options.hasher ?? createScryptHasher(),
    options.passwordChecks ?? DEFAULT_PASSWORD_CHECK_LIMITS,
  );
  const now = options.now ?? Date.now;
  const connection =
    options.redis ?? (options.redisUrl === undefined ? undefined : toSingleConnection(options.redisUrl));
  if (connection === undefined || connection.url === '') {
    const file = options.accountsFile ?? '';
    return {
      kind: file === '' ? 'memory' : 'file',
      redisPool: undefined,
      accounts:
        file === ''
          ? createMemoryAccountStore({ hasher, now })
          : createFileAccountStore({ file, hasher, now }),
      sessions: createMemorySessionStore({ now }),
      denylist: createMemoryTokenDenylist({ now }),
      close: () => Promise.resolve(),
    };
  }
  const log = options.log?.child({ component: 'accounts-redis' });
  const pool = createRedisPool(connection, { policy: FAIL_FAST_POLICY, ...(log ? { log } : {}) });
  const redis = pool.next();
  const prefix = toSlotPrefix(connection, options.prefix ?? DEFAULT_KEY_PREFIX);
  return {
    kind: 'redis',
    redisPool: pool,
    connection: redis,
    accounts: createRedisAccountStore({ redis, prefix, hasher, now }),
    sessions: createRedisSessionStore({ redis, prefix, now }),
    denylist: createRedisTokenDenylist({ redis, prefix, now }),
    close: () => pool.close(),
  };
}

function toSlotPrefix(c: RedisConnection, prefix: string): string {
  return c.type === 'cluster' && !prefix.includes('{') ? `{${prefix}}` : prefix;
}
