import { AccountsBackendError } from '@portcullis/accounts';
import { createRedisCaller, defineScript, type RedisClient } from '@portcullis/redis';
import type { RefreshFamily, RefreshStore, RotateResult } from './refresh-store.js';

/** One hash tag for every key: a cluster keeps a family and its user's index in one slot. */
export const REFRESH_KEY_PREFIX = 'gateway:{refresh}:';

// failures are the accounts backend's: the same Redis, the same 503
const { call: callRedis } = createRedisCaller(
  'refresh tokens',
  (message, cause) => new AccountsBackendError(message, { cause }),
);

const CREATE = defineScript(`
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'user', ARGV[2], 'hash', ARGV[3], 'created', ARGV[4], 'used', ARGV[4], 'exp', ARGV[5], 'ua', ARGV[6], 'ip', ARGV[7])
redis.call('PEXPIRE', KEYS[1], ARGV[8])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[4])
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[1])
if redis.call('PTTL', KEYS[2]) < tonumber(ARGV[8]) then redis.call('PEXPIRE', KEYS[2], ARGV[8]) end
return 1`);

// the check and the swap in one step: two replicas given the same token cannot both rotate it
const ROTATE = defineScript(`
local cur = redis.call('HGET', KEYS[1], 'hash')
if not cur then return {} end
if cur ~= ARGV[1] then
  local f = redis.call('HGETALL', KEYS[1])
  redis.call('DEL', KEYS[1])
  return {'reused', unpack(f)}
end
redis.call('HSET', KEYS[1], 'hash', ARGV[2], 'used', ARGV[3], 'exp', ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return {'rotated', unpack(redis.call('HGETALL', KEYS[1]))}`);

/** Families in Redis: `<prefix>family:<id>` HASH (the live token's hash), `<prefix>user:<id>` ZSET of family ids by expiry. */
export function createRedisRefreshStore(o: { redis: RedisClient; now: () => number }): RefreshStore {
  const { redis } = o;
  const familyKey = (id: string) => `${REFRESH_KEY_PREFIX}family:${id}`;
  const userKey = (id: string) => `${REFRESH_KEY_PREFIX}user:${id}`;
  const ttlMs = (expiresAt: number) => Math.max(1, expiresAt - o.now());
  return {
    async create(f, tokenHash) {
      await callRedis('refresh create', () =>
        CREATE.run(
          redis,
          [familyKey(f.id), userKey(f.userId)],
          [f.id, f.userId, tokenHash, f.createdAt, f.expiresAt, f.userAgent, f.address, ttlMs(f.expiresAt)],
        ),
      );
    },
    async rotate(familyId, presentedHash, next): Promise<RotateResult> {
      const reply = (await callRedis('refresh rotate', () =>
        ROTATE.run(
          redis,
          [familyKey(familyId)],
          [presentedHash, next.hash, next.now, next.expiresAt, ttlMs(next.expiresAt)],
        ),
      )) as string[];
      const [kind, ...fields] = reply;
      if (kind !== 'rotated' && kind !== 'reused') return { kind: 'unknown' };
      const family = toFamily(pairs(fields));
      await callRedis('ZADD', () =>
        kind === 'rotated'
          ? redis.zadd(userKey(family.userId), 'XX', family.expiresAt, family.id)
          : redis.zrem(userKey(family.userId), family.id),
      );
      return { kind, family };
    },
    async list(userId) {
      const ids = await callRedis('ZRANGEBYSCORE', () =>
        redis.zrangebyscore(userKey(userId), `(${o.now()}`, '+inf'),
      );
      const found = await Promise.all(
        ids.map((id) => callRedis('HGETALL', () => redis.hgetall(familyKey(id)))),
      );
      return found
        .filter((f) => Object.keys(f).length > 0)
        .map(toFamily)
        .sort((a, b) => a.createdAt - b.createdAt);
    },
    async end(familyId, userId) {
      const fields = await callRedis('HGETALL', () => redis.hgetall(familyKey(familyId)));
      if (Object.keys(fields).length === 0) return undefined;
      const family = toFamily(fields);
      if (userId !== undefined && family.userId !== userId) return undefined;
      await callRedis('DEL', () => redis.del(familyKey(familyId)));
      await callRedis('ZREM', () => redis.zrem(userKey(family.userId), familyId));
      return family;
    },
  };
}

function pairs(flat: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) out[flat[i] ?? ''] = flat[i + 1] ?? '';
  return out;
}

function toFamily(f: Record<string, string>): RefreshFamily {
  return {
    id: f.id ?? '',
    userId: f.user ?? '',
    createdAt: Number(f.created),
    lastUsedAt: Number(f.used),
    expiresAt: Number(f.exp),
    userAgent: f.ua ?? '',
    address: f.ip ?? '',
  };
}
