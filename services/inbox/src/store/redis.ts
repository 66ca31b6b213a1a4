import { randomUUID } from 'node:crypto';
import type { Logger } from '@portcullis/kit';
import {
  createRedisPool,
  defineScript,
  FAIL_FAST_POLICY,
  type RedisClient,
  type RedisConnection,
  type RedisPool,
} from '@portcullis/redis';
import {
  decodeCaptureEntry,
  decodeEndpoint,
  encodeCaptureFields,
  encodeEndpointFields,
} from './redis-entry.js';
import { batchPerTurnByKey, UnavailableError } from '@portcullis/kit';
import { createKeyLayout, FORWARD_GROUP, type KeyLayout } from './redis-keys.js';
import { toCaptureTail } from './capture-tail.js';
import { createRedisForwardingChannel } from './redis-forwarding-channel.js';
import { callRedis, execRedis } from './redis-caller.js';
import { createRedisShares } from './redis-shares.js';
import { ZERO_STREAM_ID } from '../contract/stream-id.js';
import type { Capture, ForwardAttempt, ForwardingEvent } from '../contract/capture-records.js';
import type {
  CaptureBatches,
  EndpointRecord,
  InboxStore,
  LiveReader,
  ManagedEndpoint,
  OnTrimmed,
} from './types.js';

export interface RedisStoreOptions {
  connection: RedisConnection;
  /**
   * Start of every key, e.g. `inbox:`. On a cluster it is put in a hash tag (`{inbox:}`): the store's
   * transactions, scripts and the worker's stream reads span several endpoints and the shared sets, so
   * every key must hash to one slot (the cluster then serves the inbox from one node and its replicas).
   */
  prefix: string;
  log: Logger;
  onTrimmed?: OnTrimmed;
}

/** The store in Redis, and its clients (for their metrics). */
export interface RedisInboxStore extends InboxStore {
  readonly kind: 'redis';
  pool: RedisPool;
}

/** The key prefix a deployment of `c`'s type uses (see `RedisStoreOptions.prefix`). */
export function toSlotPrefix(c: RedisConnection, prefix: string): string {
  return c.type === 'cluster' && !prefix.includes('{') ? `{${prefix}}` : prefix;
}

// The endpoint must still exist when the capture is written: a capture racing a DELETE stores nothing.
// MAXLEN ~ trims whole macro nodes only, so up to stream-node-max-entries (100) more may be kept. Returns
// the id and how many entries the XADD trimmed (XLEN is O(1): the exact count costs two cheap calls).
const CAPTURE = defineScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local before = redis.call('XLEN', KEYS[2])
local id = redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[1], '*', 'm', ARGV[2], 'b', ARGV[3])
return {id, before + 1 - redis.call('XLEN', KEYS[2])}`);

// Only an anonymous or account endpoint's: a managed one's come from its resource. ARGV: field, value
// pairs to set; an empty value deletes its field.
const SET_FIELDS = defineScript(`
local kind = redis.call('HGET', KEYS[1], 'kind')
if kind ~= 'anonymous' and kind ~= 'account' then return 0 end
for i = 1, #ARGV, 2 do
  if ARGV[i + 1] == '' then redis.call('HDEL', KEYS[1], ARGV[i]) else redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
end
return 1`);

const RENAME = defineScript(`
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'name', ARGV[1])
return 1`);

// ARGV: name, resource, maxRequests, maxAgeMs, createdAt, '1' when a target is enabled, then one JSON per
// forward target. The forwarders' consumer group starts at the sync, not when a worker first looks: captures
// taken while no worker runs are forwarded once one does.
const UPSERT_MANAGED = defineScript(`
local kind = redis.call('HGET', KEYS[1], 'kind')
if kind == 'anonymous' or kind == 'account' then return 0 end
redis.call('HSET', KEYS[1], 'kind', 'managed', 'name', ARGV[1], 'resource', ARGV[2], 'tokenSha256', '',
  'maxRequests', ARGV[3], 'maxAgeMs', ARGV[4])
redis.call('HSETNX', KEYS[1], 'createdAt', ARGV[5])
redis.call('DEL', KEYS[2])
for i = 7, #ARGV do redis.call('HSET', KEYS[2], tostring(i - 7), ARGV[i]) end
redis.call('PERSIST', KEYS[3])
if ARGV[6] == '1' then pcall(redis.call, 'XGROUP', 'CREATE', KEYS[3], '${FORWARD_GROUP}', '$', 'MKSTREAM') end
return 1`);

// ARGV: tokenSha256 the endpoint must still have, account id, score (ms), endpoint id.
const CLAIM = defineScript(`
if redis.call('HGET', KEYS[1], 'kind') ~= 'anonymous' then return 0 end
if redis.call('HGET', KEYS[1], 'tokenSha256') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'kind', 'account', 'ownerId', ARGV[2], 'tokenSha256', '')
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[4])
return 1`);

// The attempts of one endpoint recorded in one turn, in one call. KEYS[1]: the endpoint; KEYS[2..]: each
// attempt's capture history, which lives as long as the endpoint keeps captures (its maximum age). ARGV[1]:
// the endpoint's forwarding channel, where each attempt is published; then each attempt's record and event.
const RECORD_ATTEMPTS = defineScript(
  `
local maxAgeMs = redis.call('HGET', KEYS[1], 'maxAgeMs')
for i = 2, #KEYS do
  redis.call('RPUSH', KEYS[i], ARGV[2 * i - 2])
  if maxAgeMs then redis.call('PEXPIRE', KEYS[i], maxAgeMs) end
  redis.call('PUBLISH', ARGV[1], ARGV[2 * i - 1])
end
return 1`,
  { variadicKeys: true },
);

// The captures outlive the endpoint by its maximum age, and are kept if the resource comes back first.
const DETACH_MANAGED = defineScript(`
if redis.call('HGET', KEYS[1], 'kind') ~= 'managed' then return 0 end
local maxAgeMs = redis.call('HGET', KEYS[1], 'maxAgeMs')
redis.call('DEL', KEYS[1], KEYS[2])
redis.call('PEXPIRE', KEYS[3], maxAgeMs)
return 1`);

const TRIM_BATCH = 200;
/** A live reader's wake stream outlives its process by this much at most. */
const WAKE_TTL_MS = 60_000;

/**
 * The store in Redis (see redis-keys.ts for the layout). One connection for everything but the live
 * readers, which block (XREAD BLOCK) and so each get a dedicated one (the live streams of a process share
 * one: see feed-hub.ts). lib/redis's `FAIL_FAST_POLICY`: with Redis down a capture fails fast with 503
 * instead of hanging.
 */
export function createRedisStore(o: RedisStoreOptions): RedisInboxStore {
  const pool = createRedisPool(o.connection, {
    policy: FAIL_FAST_POLICY,
    log: o.log.child({ component: 'inbox-redis' }),
  });
  const keys = createKeyLayout(toSlotPrefix(o.connection, o.prefix));
  const redis = pool.next();
  const reconnectListeners = new Set<() => void>();
  let wasConnected = false;
  pool.onConnectedChange((connected) => {
    if (connected && wasConnected) for (const l of [...reconnectListeners]) l();
    wasConnected ||= connected;
  });
  const readers = new Set<RedisClient>();
  const openLiveReader = (): LiveReader => openRedisLiveReader({ pool, readers, keys, redis });
  // a worker records many attempts a turn: one script call per endpoint instead of one per attempt
  const recordInTurn = batchPerTurnByKey<{ requestId: string; attempt: ForwardAttempt }>(
    (endpointId, records) =>
      RECORD_ATTEMPTS.run(
        redis,
        [keys.endpoint(endpointId), ...records.map((r) => keys.forwarding(endpointId, r.requestId))],
        [
          keys.forwardingEvents(endpointId),
          ...records.flatMap(({ requestId, attempt }) => {
            const event: ForwardingEvent = { requestId, ...attempt };
            return [JSON.stringify(attempt), JSON.stringify(event)];
          }),
        ],
      ),
  );
  const forwardingChannel = createRedisForwardingChannel({
    pool,
    channelOf: (id) => keys.forwardingEvents(id),
    log: o.log,
  });

  const readEndpoints = async (ids: readonly string[]): Promise<Array<EndpointRecord | undefined>> => {
    if (ids.length === 0) return [];
    const pipeline = redis.pipeline();
    for (const id of ids) pipeline.hgetall(keys.endpoint(id)).hgetall(keys.targets(id));
    const replies = (await execRedis('HGETALL', pipeline)) as Array<Record<string, string>>;
    return ids.map((id, i) => decodeEndpoint(id, replies[2 * i] ?? {}, replies[2 * i + 1] ?? {}));
  };
  const upsertManaged = async (e: ManagedEndpoint, createdAt: string): Promise<boolean> => {
    const forwards = e.forward.some((t) => t.enabled) ? '1' : '0';
    const args = [e.name, e.resource, e.retention.maxRequests, e.retention.maxAgeMs, createdAt, forwards];
    const scriptKeys = [keys.endpoint(e.id), keys.targets(e.id), keys.captures(e.id)];
    const targets = e.forward.map((t) => JSON.stringify(t));
    const done = await callRedis('upsert', () =>
      UPSERT_MANAGED.run(redis, scriptKeys, [...args, ...targets]),
    );
    if (done !== 1) return false;
    const tx = redis.multi().sadd(keys.endpoints, e.id).sadd(keys.managed, e.id);
    if (e.response) tx.hset(keys.endpoint(e.id), 'response', JSON.stringify(e.response));
    else tx.hdel(keys.endpoint(e.id), 'response');
    if (e.signature) tx.hset(keys.endpoint(e.id), 'signature', JSON.stringify(e.signature));
    else tx.hdel(keys.endpoint(e.id), 'signature');
    await execRedis('SADD', tx);
    return true;
  };
  const decodeAll = (entries: Array<[Buffer, Buffer[]]>): Capture[] => entries.map(decodeCaptureEntry);

  return {
    kind: 'redis',
    connection: redis,
    pool,
    async createEndpoint(e) {
      const kind = e.ownerId === '' ? 'anonymous' : 'account';
      const fields = encodeEndpointFields({ ...e, kind, resource: '' });
      const tx = redis
        .multi()
        .hset(keys.endpoint(e.id), ...fields)
        .sadd(keys.endpoints, e.id);
      if (kind === 'account') tx.zadd(keys.accountEndpoints(e.ownerId), Date.parse(e.createdAt), e.id);
      await execRedis('createEndpoint', tx);
    },
    async listAccountEndpoints(accountId) {
      const key = keys.accountEndpoints(accountId);
      const ids = await callRedis('ZRANGE', () => redis.zrevrange(key, 0, -1));
      const records = await readEndpoints(ids);
      // an id whose endpoint is gone or changed hands (never expected) is not shown
      return records.filter((r): r is EndpointRecord => r?.kind === 'account' && r.ownerId === accountId);
    },
    async claimEndpoint(id, claim) {
      const scriptKeys = [keys.endpoint(id), keys.accountEndpoints(claim.accountId)];
      const args = [claim.tokenSha256, claim.accountId, Date.now(), id];
      return (await callRedis('claim', () => CLAIM.run(redis, scriptKeys, args))) === 1;
    },
    async getEndpoint(id) {
      return (await readEndpoints([id]))[0];
    },
    async renameEndpoint(id, name) {
      return (await callRedis('rename', () => RENAME.run(redis, [keys.endpoint(id)], [name]))) === 1;
    },
    async setSignature(id, signature) {
      const args = ['signature', signature ? JSON.stringify(signature) : ''];
      return (await callRedis('set signature', () => SET_FIELDS.run(redis, [keys.endpoint(id)], args))) === 1;
    },
    async setEndpointResponse(id, response) {
      const args = ['response', response ? JSON.stringify(response) : ''];
      return (await callRedis('set response', () => SET_FIELDS.run(redis, [keys.endpoint(id)], args))) === 1;
    },
    async setEndpointRetention(id, retention) {
      const args = ['maxRequests', retention.maxRequests, 'maxAgeMs', retention.maxAgeMs];
      return (await callRedis('set retention', () => SET_FIELDS.run(redis, [keys.endpoint(id)], args))) === 1;
    },
    async deleteEndpoint(id) {
      const ownerId = await callRedis('HGET', () => redis.hget(keys.endpoint(id), 'ownerId'));
      const tx = redis
        .multi()
        .del(keys.endpoint(id))
        .del(keys.targets(id), keys.captures(id))
        .del(keys.shares(id))
        .srem(keys.endpoints, id)
        .srem(keys.managed, id);
      if (ownerId) tx.zrem(keys.accountEndpoints(ownerId), id);
      const [deleted] = await execRedis('deleteEndpoint', tx);
      return deleted === 1;
    },
    async syncManagedEndpoints(list) {
      const wanted = new Set(list.map((e) => e.id));
      const current = await callRedis('SMEMBERS', () => redis.smembers(keys.managed));
      for (const id of current.filter((i) => !wanted.has(i))) {
        const scriptKeys = [keys.endpoint(id), keys.targets(id), keys.captures(id)];
        await callRedis('detach', () => DETACH_MANAGED.run(redis, scriptKeys, []));
        await execRedis('SREM', redis.multi().srem(keys.endpoints, id).srem(keys.managed, id));
      }
      const conflicts: string[] = [];
      const createdAt = new Date().toISOString();
      for (const e of list) if (!(await upsertManaged(e, createdAt))) conflicts.push(e.id);
      return { conflicts };
    },
    async listManagedEndpoints() {
      const ids = (await callRedis('SMEMBERS', () => redis.smembers(keys.managed))).sort();
      return (await readEndpoints(ids)).filter((r): r is EndpointRecord => r?.kind === 'managed');
    },
    async appendCapture(endpointId, capture, maxRequests) {
      const scriptKeys = [keys.endpoint(endpointId), keys.captures(endpointId)];
      const [, meta, , body] = encodeCaptureFields(capture);
      const reply = await callRedis('capture', () =>
        CAPTURE.run(redis, scriptKeys, [maxRequests, meta, body]),
      );
      if (!Array.isArray(reply)) return undefined;
      const [id, trimmed] = reply as [string, number];
      if (trimmed > 0) o.onTrimmed?.('count', trimmed);
      return id;
    },
    async getCapture(endpointId, id) {
      const key = keys.captures(endpointId);
      const found = await callRedis('XRANGE', () => redis.xrangeBuffer(key, id, id, 'COUNT', 1));
      return decodeAll(found)[0];
    },
    async listCaptures(endpointId, opts) {
      const key = keys.captures(endpointId);
      const end = opts.before === undefined ? '+' : `(${opts.before}`;
      const start = opts.since ?? '-';
      return decodeAll(
        await callRedis('XREVRANGE', () => redis.xrevrangeBuffer(key, end, start, 'COUNT', opts.limit)),
      );
    },
    async listCapturesAfter(endpointId, opts) {
      const key = keys.captures(endpointId);
      return decodeAll(
        await callRedis('XRANGE', () => redis.xrangeBuffer(key, `(${opts.after}`, '+', 'COUNT', opts.limit)),
      );
    },
    async lastCaptureId(endpointId) {
      const key = keys.captures(endpointId);
      const [last] = await callRedis('XREVRANGE', () => redis.xrevrangeBuffer(key, '+', '-', 'COUNT', 1));
      return last ? last[0].toString() : ZERO_STREAM_ID;
    },
    async countCaptures(endpointId) {
      return callRedis('XLEN', () => redis.xlen(keys.captures(endpointId)));
    },
    async trimByAge(nowMs) {
      let cursor = '0';
      do {
        const [next, ids] = await callRedis('SSCAN', () =>
          redis.sscan(keys.endpoints, cursor, 'COUNT', TRIM_BATCH),
        );
        cursor = next;
        const ages = ids.length === 0 ? [] : await readMaxAges(ids);
        const pipeline = redis.pipeline();
        ids.forEach((id, i) => {
          const maxAgeMs = Number(ages[i]);
          if (Number.isFinite(maxAgeMs) && maxAgeMs > 0) {
            pipeline.xtrim(keys.captures(id), 'MINID', '~', `${Math.max(0, nowMs - maxAgeMs)}-0`);
          }
        });
        if (pipeline.length === 0) continue;
        const trimmed = (await execRedis('XTRIM', pipeline)) as number[];
        const total = trimmed.reduce((n, t) => n + t, 0);
        if (total > 0) o.onTrimmed?.('age', total);
      } while (cursor !== '0');
    },
    async recordForwardAttempt(endpointId, requestId, attempt) {
      await callRedis('record attempt', () => recordInTurn(endpointId, { requestId, attempt }));
    },
    async listForwardAttempts(endpointId, requestId) {
      const key = keys.forwarding(endpointId, requestId);
      const items = await callRedis('LRANGE', () => redis.lrange(key, 0, -1));
      return items.map((json) => JSON.parse(json) as ForwardAttempt);
    },
    ...createRedisShares(redis, keys),
    async listForwardHistories(endpointId, requestIds) {
      if (requestIds.length === 0) return [];
      const pipeline = redis.pipeline();
      for (const id of requestIds) pipeline.lrange(keys.forwarding(endpointId, id), 0, -1);
      const lists = (await execRedis('LRANGE', pipeline)) as string[][];
      return lists.map((items) => items.map((json) => JSON.parse(json) as ForwardAttempt));
    },
    watchForwarding(endpointId, listener) {
      return forwardingChannel.watch(endpointId, listener);
    },
    openTail(endpointId) {
      return toCaptureTail(openLiveReader(), endpointId);
    },
    openLiveReader,
    onReconnect(listener) {
      reconnectListeners.add(listener);
      return () => reconnectListeners.delete(listener);
    },
    async close() {
      for (const r of readers) r.disconnect();
      forwardingChannel.close();
      await pool.close();
    },
  };

  async function readMaxAges(ids: readonly string[]): Promise<unknown[]> {
    const pipeline = redis.pipeline();
    for (const id of ids) pipeline.hget(keys.endpoint(id), 'maxAgeMs');
    return execRedis('HGET', pipeline);
  }
}

/**
 * XREAD BLOCK over every watched endpoint's stream at once, on one connection of its own (a blocked
 * connection serves nobody else), whatever the number of endpoints. The read also watches a wake stream of
 * its own (`KeyLayout.liveWake`), which `wake` appends to from the store's connection: the blocked read
 * returns, and the next one names the endpoints as they are now. On a cluster every key of the store shares
 * the prefix's slot (`toSlotPrefix`), so one XREAD reaches them all on the node that serves it.
 */
function openRedisLiveReader(o: {
  pool: RedisPool;
  readers: Set<RedisClient>;
  keys: KeyLayout;
  redis: RedisClient;
}): LiveReader {
  const conn = o.pool.dedicated();
  o.readers.add(conn);
  const wakeKey = o.keys.liveWake(randomUUID());
  const state = { closed: false, reading: false, wakeCursor: ZERO_STREAM_ID };
  const isClosed = (): boolean => state.closed;
  return {
    async read(cursors, opts) {
      if (state.closed) return new Map();
      const endpointOf = new Map<string, string>();
      for (const id of cursors.keys()) endpointOf.set(o.keys.captures(id), id);
      state.reading = true;
      let reply: Array<[Buffer, Array<[Buffer, Buffer[]]>]> | null;
      try {
        reply = await conn.xreadBuffer(
          'COUNT',
          opts.count,
          'BLOCK',
          opts.blockMs,
          'STREAMS',
          ...endpointOf.keys(),
          wakeKey,
          ...cursors.values(),
          state.wakeCursor,
        );
      } catch (err: unknown) {
        if (isClosed()) return new Map();
        throw new UnavailableError('inbox store: redis XREAD failed', { cause: err });
      } finally {
        state.reading = false;
      }
      const batches: CaptureBatches = new Map();
      for (const [key, entries] of reply ?? []) {
        const id = endpointOf.get(key.toString());
        if (id !== undefined) batches.set(id, entries.map(decodeCaptureEntry));
        else state.wakeCursor = entries.at(-1)?.[0].toString() ?? state.wakeCursor;
      }
      return batches;
    },
    wake() {
      if (!state.reading || state.closed) return;
      o.redis
        .multi()
        .xadd(wakeKey, 'MAXLEN', 1, '*', 'w', '1')
        .pexpire(wakeKey, WAKE_TTL_MS)
        .exec()
        .catch(() => undefined); // Redis is down: the read fails too, and the next one names every endpoint
    },
    close() {
      state.closed = true;
      o.readers.delete(conn);
      conn.disconnect();
      o.redis.del(wakeKey).catch(() => undefined); // else it expires
    },
  };
}
