import {
  batchPerTurnByKey,
  UnavailableError,
  type Logger,
  type RedisConnectionEvents,
} from '@portcullis/kit';
import { createRedisPool, FAIL_FAST_POLICY, type RedisConnection } from '@portcullis/redis';
import { callRedis } from '../store/redis-caller.js';
import { decodeCaptureEntry } from '../store/redis-entry.js';
import { createKeyLayout, FORWARD_GROUP } from '../store/redis-keys.js';
import { toSlotPrefix } from '../store/redis.js';
import type { ForwardQueue, QueuedCapture } from './forward-queue.js';

// The worker's queue: the endpoints' capture streams themselves, read through the `forwarders` consumer group
// (the store's sync creates it). A worker that dies leaves its entries pending, and another claims them once
// idle (XAUTOCLAIM). A live worker keeps its entries from looking idle with `touch` (XCLAIM to itself,
// JUSTID: the delivery count stays).

type RawEntry = [Buffer, Buffer[]];

/** The worker's queue, with the Redis connection its commands use (the worker's readiness follows it). */
export interface RedisForwardQueue extends ForwardQueue {
  readonly connection: RedisConnectionEvents;
}

export function createRedisForwardQueue(o: {
  connection: RedisConnection;
  prefix: string;
  consumerName: string;
  log: Logger;
}): RedisForwardQueue {
  // on a cluster every key is in one slot (see `toSlotPrefix`): one XREADGROUP reads every stream
  const keys = createKeyLayout(toSlotPrefix(o.connection, o.prefix));
  const log = o.log.child({ component: 'forward-queue' });
  // XREADGROUP and XAUTOCLAIM go through callBuffer (ioredis types neither's Buffer form), which
  // auto-pipelining would send without its command name
  const pool = createRedisPool(o.connection, { policy: { ...FAIL_FAST_POLICY, autoPipelining: false }, log });
  const redis = pool.next();
  // XREADGROUP BLOCK holds its connection: the other commands must not wait behind it
  const reader = pool.dedicated();
  // the acks of one turn leave together, one XACK per endpoint: not a command and a write per capture
  const ackInTurn = batchPerTurnByKey<string>((endpointId, requestIds) =>
    redis.xack(keys.captures(endpointId), FORWARD_GROUP, ...requestIds),
  );
  const idOf = (key: Buffer | string): string | undefined => /^.*ep:\{(.*)\}:req$/.exec(key.toString())?.[1];

  return {
    async ensureGroups(endpointIds) {
      for (const id of endpointIds) {
        try {
          await redis.xgroup('CREATE', keys.captures(id), FORWARD_GROUP, '$', 'MKSTREAM');
        } catch (err: unknown) {
          if (!(err instanceof Error) || !err.message.startsWith('BUSYGROUP')) {
            throw new UnavailableError('inbox store: redis XGROUP CREATE failed', { cause: err });
          }
        }
      }
    },
    async readNew(endpointIds, opts) {
      if (endpointIds.length === 0) return [];
      const streams = endpointIds.map((id) => keys.captures(id));
      const reply = (await callRedis('XREADGROUP', () =>
        // arguments spread, not one array: a cluster's auto-pipelining does not flatten an array
        reader.callBuffer(
          'XREADGROUP',
          ...['GROUP', FORWARD_GROUP, o.consumerName, 'COUNT', opts.count, 'BLOCK', opts.blockMs],
          ...['STREAMS', ...streams, ...streams.map(() => '>')],
        ),
      )) as Array<[Buffer, RawEntry[]]> | null;
      const out: QueuedCapture[] = [];
      for (const [key, entries] of reply ?? []) {
        const endpointId = idOf(key);
        if (endpointId === undefined) continue;
        for (const entry of entries)
          out.push({ endpointId, capture: decodeCaptureEntry(entry), fresh: true });
      }
      return out;
    },
    async claimStale(endpointId, opts) {
      const key = keys.captures(endpointId);
      const reply = (await callRedis('XAUTOCLAIM', () =>
        redis.callBuffer(
          'XAUTOCLAIM',
          ...[key, FORWARD_GROUP, o.consumerName, opts.minIdleMs, '0-0', 'COUNT', opts.count],
        ),
      )) as [Buffer, RawEntry[], Buffer[]?];
      const deleted = reply[2] ?? [];
      // Redis 7 drops trimmed entries from the pending list as it reports them: they are lost to forwarding
      if (deleted.length > 0) log.warn({ endpointId, lost: deleted.length }, 'pending captures trimmed');
      return reply[1]
        .filter((entry) => Array.isArray(entry[1]))
        .map((entry) => ({ endpointId, capture: decodeCaptureEntry(entry), fresh: false }));
    },
    async touch(endpointId, requestIds) {
      if (requestIds.length === 0) return;
      const key = keys.captures(endpointId);
      await callRedis('XCLAIM', () =>
        redis.xclaim(key, FORWARD_GROUP, o.consumerName, 0, ...requestIds, 'JUSTID'),
      );
    },
    async ack(endpointId, requestId) {
      await callRedis('XACK', () => ackInTurn(endpointId, requestId));
    },
    async backlog(endpointIds) {
      const pipeline = redis.pipeline();
      for (const id of endpointIds) pipeline.xinfo('GROUPS', keys.captures(id));
      const groups = await callRedis('XINFO', async () => (await pipeline.exec()) ?? []);
      const totals = { pending: 0, lag: 0 };
      // an endpoint deleted since the worker last read the list has no stream: it counts for nothing
      for (const [err, list] of groups) {
        if (err) continue;
        for (const group of list as unknown[][]) {
          const fields = new Map<unknown, unknown>();
          for (let i = 0; i + 1 < group.length; i += 2) fields.set(group[i], group[i + 1]);
          if (fields.get('name') !== FORWARD_GROUP) continue;
          totals.pending += Number(fields.get('pending') ?? 0);
          // nil when Redis cannot tell (entries deleted from the stream): nothing to add then
          totals.lag += Number(fields.get('lag') ?? 0);
        }
      }
      return totals;
    },
    connection: redis,
    stopReading() {
      reader.disconnect();
    },
    close() {
      reader.disconnect();
      for (const client of pool.clients) client.disconnect();
    },
  };
}
