import type { ChainableCommander } from 'ioredis';
import { defineScript, type RedisClient } from '@portcullis/redis';
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

/**
 * The bucket script, by digest with a resend on NOSCRIPT (a flushed script cache, a failover); a pipeline
 * loads it first, so no SCRIPT LOAD round trip is needed.
 */
export const BUCKET_TAKE = defineScript(BUCKET_TAKE_LUA);

/**
 * The increments and reads of one batch in one call: per key, upstream's `INCRBY` + `EXPIRE` (hits and TTL in
 * `ARGV[2i-1]`, `ARGV[2i]`) or a `GET` (both empty). Each answer is the key's own: the count after, the value
 * read (nil when absent), or the error its command raised (`pcall`), so one bad key fails one request only.
 */
const COUNTERS_LUA = `
local out = {}
for i = 1, #KEYS do
  local hits = ARGV[2 * i - 1]
  local v
  if hits == '' then
    v = redis.pcall('GET', KEYS[i])
  else
    v = redis.pcall('INCRBY', KEYS[i], hits)
    if type(v) == 'number' then
      local e = redis.pcall('EXPIRE', KEYS[i], ARGV[2 * i])
      if type(e) == 'table' then v = e end
    end
  end
  out[i] = v
end
return out
`;

/**
 * The counters script: one command instead of two per increment, which is most of the client's CPU per
 * decision (each ioredis command costs ~10 µs) for about 1 µs more of Redis's. Keys of one call must share a
 * slot, so a cluster does not use it.
 */
export const COUNTERS = defineScript(COUNTERS_LUA, { variadicKeys: true });

/** Queues a take on a pipeline of a client that `BUCKET_TAKE.define` prepared. */
export function queueBucketTake(pipeline: ChainableCommander, op: BucketTake): void {
  BUCKET_TAKE.queue(pipeline, [op.key], [op.nowUs, op.costUs, op.capacityUs]);
}

/** Sends a take; answers the script's reply. */
export function sendBucketTake(client: RedisClient, op: BucketTake): Promise<unknown> {
  return BUCKET_TAKE.run(client, [op.key], [op.nowUs, op.costUs, op.capacityUs]);
}
