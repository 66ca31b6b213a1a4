import { defineScript, type RedisClient } from '@portcullis/redis';
import { callRedis, execRedis } from '../store/redis-caller.js';
import { FORWARD_GROUP, type KeyLayout } from '../store/redis-keys.js';
import {
  MAX_DEAD_LETTERS_PER_ENDPOINT,
  REDRIVE_CONSUMER,
  REDRIVE_IDLE_MS,
  redriveEntry,
  type DeadLetter,
  type DeadLetters,
  type RedriveResult,
  type StoredDeadLetter,
} from './dead-letters.js';

// One script, so a letter is redriven once whoever asks: the letter still there? the capture not being
// forwarded (pending on a worker)? then its history gets the redrive entry, the capture is made pending again
// on the `redrive` consumer, idle for long (any forwarder's next claim of idle captures takes it), and the
// letter is deleted. A capture already waiting on that consumer (another of its targets redriven) may take
// one more target. KEYS: letters, captures, forwarding history, endpoint. ARGV: letter id, request id, the
// history entry (JSON).
const REDRIVE = defineScript(`
if #redis.call('XRANGE', KEYS[1], ARGV[1], ARGV[1]) == 0 then return 'missing' end
if #redis.call('XRANGE', KEYS[2], ARGV[2], ARGV[2]) == 0 then
  redis.call('XDEL', KEYS[1], ARGV[1])
  return 'gone'
end
local ok, pending = pcall(redis.call, 'XPENDING', KEYS[2], '${FORWARD_GROUP}', ARGV[2], ARGV[2], 1)
if not ok then return 'busy' end
if #pending > 0 and pending[1][2] ~= '${REDRIVE_CONSUMER}' then return 'busy' end
redis.call('RPUSH', KEYS[3], ARGV[3])
local maxAgeMs = redis.call('HGET', KEYS[4], 'maxAgeMs')
if maxAgeMs then redis.call('PEXPIRE', KEYS[3], maxAgeMs) end
redis.call('XCLAIM', KEYS[2], '${FORWARD_GROUP}', '${REDRIVE_CONSUMER}', 0, ARGV[2], 'IDLE', ${REDRIVE_IDLE_MS}, 'FORCE', 'JUSTID')
redis.call('XDEL', KEYS[1], ARGV[1])
return 'redriven'`);

// The letters outlive their captures by nothing: the stream expires with the endpoint's maximum age after the
// newest letter (a removed resource's letters go with its captures). KEYS: letters, endpoint. ARGV: the cap,
// then the letter's fields.
const ADD = defineScript(`
redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[1], '*', unpack(ARGV, 2))
local maxAgeMs = redis.call('HGET', KEYS[2], 'maxAgeMs')
if maxAgeMs then redis.call('PEXPIRE', KEYS[1], maxAgeMs) end
return 1`);

type Entry = [string, string[]];

const decode = ([id, fields]: Entry): StoredDeadLetter => {
  const m = new Map<string, string>();
  for (let i = 0; i + 1 < fields.length; i += 2) m.set(fields[i] ?? '', fields[i + 1] ?? '');
  const f = (k: keyof DeadLetter): string => m.get(k) ?? '';
  return {
    id,
    endpointId: f('endpointId'),
    requestId: f('requestId'),
    target: f('target'),
    attempts: f('attempts'),
    last: f('last'),
    at: f('at'),
  };
};

/** The dead letters in Redis: one stream per endpoint, `<p>ep:{<id>}:dlq`, trimmed to about the newest 1,000. */
export function createRedisDeadLetters(o: {
  redis: RedisClient;
  keys: KeyLayout;
  now?: () => number;
}): DeadLetters {
  const { redis, keys } = o;
  const now = o.now ?? Date.now;
  return {
    async add(letter) {
      const flat = Object.entries<string>(letter).flat();
      const scriptKeys = [keys.deadLetters(letter.endpointId), keys.endpoint(letter.endpointId)];
      await callRedis('add dead letter', () =>
        ADD.run(redis, scriptKeys, [String(MAX_DEAD_LETTERS_PER_ENDPOINT), ...flat]),
      );
    },
    async list(endpointId, page) {
      const end = page.before === undefined ? '+' : `(${page.before}`;
      const entries = await callRedis('XREVRANGE', () =>
        redis.xrevrange(keys.deadLetters(endpointId), end, '-', 'COUNT', page.limit),
      );
      return (entries as Entry[]).map(decode);
    },
    async get(endpointId, id) {
      const entries = await callRedis('XRANGE', () => redis.xrange(keys.deadLetters(endpointId), id, id));
      const [entry] = entries as Entry[];
      return entry && decode(entry);
    },
    async redrive(letter) {
      const { endpointId, requestId } = letter;
      const scriptKeys = [
        keys.deadLetters(endpointId),
        keys.captures(endpointId),
        keys.forwarding(endpointId, requestId),
        keys.endpoint(endpointId),
      ];
      const entry = JSON.stringify(redriveEntry(letter, new Date(now()).toISOString()));
      return (await callRedis('redrive', () =>
        REDRIVE.run(redis, scriptKeys, [letter.id, requestId, entry]),
      )) as RedriveResult;
    },
    async count(endpointIds) {
      if (endpointIds.length === 0) return 0;
      const pipeline = redis.pipeline();
      for (const id of endpointIds) pipeline.xlen(keys.deadLetters(id));
      const replies = await execRedis('XLEN', pipeline);
      return replies.reduce<number>((n, r) => n + Number(r ?? 0), 0);
    },
  };
}
