import type { ChainableCommander } from 'ioredis';
import type { RedisClient } from './redis-client.js';
import type { BucketTake } from './types.js';

/**
 * `BucketTake` (GCRA) in one script over one key, so it is atomic and works on Redis Cluster; the same
 * arithmetic as `bucket-take.ts`. Times are whole µs, exact in Lua's doubles; `%.0f` keeps all the digits
 * that `tostring` would round away.
 */
const BUCKET_TAKE_LUA = `
local now = tonumber(ARGV[1])
local cost = tonumber(ARGV[2])
local capacity = tonumber(ARGV[3])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
local base = math.max(tat, now)
local nxt = base + cost
if nxt - now > capacity then return -base end
if cost > 0 then
  redis.call('SET', KEYS[1], string.format('%.0f', nxt), 'PX', math.ceil((nxt - now) / 1000))
end
return nxt
`;

const COMMAND = 'portcullisBucketTake';

/** What `defineCommand` adds to a client and its pipelines; ioredis's types cannot know it. */
interface WithBucketTake {
  [COMMAND](key: string, nowUs: number, costUs: number, capacityUs: number): unknown;
}

/**
 * Teaches `client` the bucket script. ioredis sends it with EVAL once per connection and EVALSHA after,
 * and resends it on NOSCRIPT (a flushed script cache, a failover), so no SCRIPT LOAD round trip is needed.
 */
export function defineBucketTake(client: RedisClient): void {
  client.defineCommand(COMMAND, { numberOfKeys: 1, lua: BUCKET_TAKE_LUA });
}

/** Queues a take on a pipeline that `defineBucketTake` prepared (its client's, that is). */
export function queueBucketTake(pipeline: ChainableCommander, op: BucketTake): void {
  (pipeline as unknown as WithBucketTake)[COMMAND](op.key, op.nowUs, op.costUs, op.capacityUs);
}

/** Sends a take on a client `defineBucketTake` prepared; answers the script's reply. */
export function sendBucketTake(client: RedisClient, op: BucketTake): Promise<unknown> {
  return (client as unknown as WithBucketTake)[COMMAND](
    op.key,
    op.nowUs,
    op.costUs,
    op.capacityUs,
  ) as Promise<unknown>;
}
