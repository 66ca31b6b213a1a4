import { defineScript, type RedisClient } from '@portcullis/redis';
import { callRedis } from './redis-caller.js';
import { toRevocationTtlMs } from './revocation-rules.js';
import type { Clock, TokenDenylist } from './types.js';

export interface RedisTokenDenylistOptions {
  redis: RedisClient;
  /** Every key starts with it, e.g. `acct:`. */
  prefix: string;
  /** The verifier's clock: entry lifetimes are counted from it, not from the Redis server's. */
  now?: Clock;
}

// Never shortens an entry: a second revocation with an earlier expiry leaves the longer one.
const REVOKE = defineScript(`
if redis.call('PTTL', KEYS[1]) < tonumber(ARGV[1]) then redis.call('SET', KEYS[1], '1', 'PX', ARGV[1]) end
return 1`);

/** Revoked JWT ids in Redis: `<prefix>revoked:<jti>` STRING `1`, expiring when the token would. */
export function createRedisTokenDenylist(o: RedisTokenDenylistOptions): TokenDenylist {
  const { redis, prefix } = o;
  const now = o.now ?? Date.now;
  const key = (jti: string): string => `${prefix}revoked:${jti}`;

  return {
    async revoke(jti, expiresAtSec) {
      const ttlMs = toRevocationTtlMs(jti, expiresAtSec, now());
      if (ttlMs === 0) return;
      await callRedis('revoke', () => REVOKE.run(redis, [key(jti)], [ttlMs]));
    },
    async isRevoked(jti) {
      if (jti.length === 0) return false;
      return (await callRedis('EXISTS', () => redis.exists(key(jti)))) === 1;
    },
  };
}
