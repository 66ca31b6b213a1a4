import { defineScript, type RedisClient } from '@portcullis/redis';
import { callRedis } from './redis-caller.js';
import type { KeyLayout } from './redis-keys.js';
import type { InboxStore, ShareRecord } from './types.js';

// ARGV: the bound, the share id, its JSON. One script: two concurrent creations never pass the bound.
const CREATE_SHARE = defineScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 'missing' end
if redis.call('HLEN', KEYS[2]) >= tonumber(ARGV[1]) then return 'limit' end
redis.call('HSET', KEYS[2], ARGV[2], ARGV[3])
return 'created'`);

/** The share-link methods of the Redis store: a HASH per endpoint (`KeyLayout.shares`). */
export function createRedisShares(
  redis: RedisClient,
  keys: KeyLayout,
): Pick<InboxStore, 'createShare' | 'listShares' | 'deleteShare'> {
  return {
    async createShare(endpointId, share, max) {
      const scriptKeys = [keys.endpoint(endpointId), keys.shares(endpointId)];
      const args = [max, share.id, JSON.stringify(share)];
      const outcome = await callRedis('share', () => CREATE_SHARE.run(redis, scriptKeys, args));
      return outcome === 'created' || outcome === 'limit' ? outcome : 'missing';
    },
    async listShares(endpointId) {
      const all = await callRedis('HGETALL', () => redis.hgetall(keys.shares(endpointId)));
      return Object.values(all)
        .map((json) => JSON.parse(json) as ShareRecord)
        .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id));
    },
    async deleteShare(endpointId, shareId) {
      return (await callRedis('HDEL', () => redis.hdel(keys.shares(endpointId), shareId))) === 1;
    },
  };
}
