import { defineScript, type RedisClient } from '@portcullis/redis';
import { callRedis, toFieldMap } from './redis-caller.js';
import { createSessionId, isSessionId, toTtlMs } from './session-rules.js';
import type { Clock, Session, SessionStore } from './types.js';

export interface RedisSessionStoreOptions {
  redis: RedisClient;
  /** Every key starts with it, e.g. `acct:`. */
  prefix: string;
  now?: Clock;
}

// The per-account index (ZSET: session id scored by expiry in ms) drops expired members on each creation
// and lives as long as its longest session. Scripts that start from a session id build the index key from
// the account id they read: one round trip, on a single Redis (not Cluster).
const CREATE = defineScript(`
redis.call('HSET', KEYS[1], 'accountId', ARGV[1], 'expiresAt', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[5])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[6])
if redis.call('PTTL', KEYS[2]) < tonumber(ARGV[3]) then redis.call('PEXPIRE', KEYS[2], ARGV[3]) end
return 1`);

const TOUCH = defineScript(`
local accountId = redis.call('HGET', KEYS[1], 'accountId')
if not accountId then return false end
redis.call('HSET', KEYS[1], 'expiresAt', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
local index = ARGV[1] .. accountId
redis.call('ZADD', index, ARGV[4], ARGV[5])
if redis.call('PTTL', index) < tonumber(ARGV[3]) then redis.call('PEXPIRE', index, ARGV[3]) end
return accountId`);

const DESTROY = defineScript(`
local accountId = redis.call('HGET', KEYS[1], 'accountId')
if not accountId then return 0 end
redis.call('DEL', KEYS[1])
redis.call('ZREM', ARGV[1] .. accountId, ARGV[2])
return 1`);

const DESTROY_ALL = defineScript(`
local n = 0
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do n = n + redis.call('DEL', ARGV[1] .. id) end
redis.call('DEL', KEYS[1])
return n`);

/**
 * Sessions in Redis: `<prefix>session:<id>` HASH (accountId, expiresAt) expiring with the session, and
 * `<prefix>account-sessions:<accountId>` ZSET for `destroyAllFor`.
 */
export function createRedisSessionStore(o: RedisSessionStoreOptions): SessionStore {
  const { redis, prefix } = o;
  const now = o.now ?? Date.now;
  const sessionPrefix = `${prefix}session:`;
  const indexPrefix = `${prefix}account-sessions:`;

  return {
    async create(accountId, { ttlSeconds }) {
      const ttlMs = toTtlMs(ttlSeconds);
      const t = now();
      const session: Session = {
        id: createSessionId(),
        accountId,
        expiresAt: new Date(t + ttlMs).toISOString(),
      };
      const keys = [sessionPrefix + session.id, indexPrefix + accountId];
      const args = [accountId, session.expiresAt, ttlMs, t + ttlMs, t, session.id];
      await callRedis('createSession', () => CREATE.run(redis, keys, args));
      return session;
    },
    async get(id) {
      if (!isSessionId(id)) return undefined;
      const fields = toFieldMap(await callRedis('HGETALL', () => redis.hgetall(sessionPrefix + id)));
      const { accountId, expiresAt } = fields ?? {};
      return accountId === undefined || expiresAt === undefined ? undefined : { id, accountId, expiresAt };
    },
    async touch(id, ttlSeconds) {
      const ttlMs = toTtlMs(ttlSeconds);
      if (!isSessionId(id)) return undefined;
      const expiresAtMs = now() + ttlMs;
      const expiresAt = new Date(expiresAtMs).toISOString();
      const args = [indexPrefix, expiresAt, ttlMs, expiresAtMs, id];
      const accountId = await callRedis('touchSession', () => TOUCH.run(redis, [sessionPrefix + id], args));
      return typeof accountId === 'string' ? { id, accountId, expiresAt } : undefined;
    },
    async destroy(id) {
      if (!isSessionId(id)) return false;
      const args = [indexPrefix, id];
      return (await callRedis('destroySession', () => DESTROY.run(redis, [sessionPrefix + id], args))) === 1;
    },
    async destroyAllFor(accountId) {
      const keys = [indexPrefix + accountId];
      return Number(await callRedis('destroyAllFor', () => DESTROY_ALL.run(redis, keys, [sessionPrefix])));
    },
  };
}
