import { createHash } from 'node:crypto';
import type { ChainableCommander } from 'ioredis';
import type { RedisClient } from './types.js';

type Arg = string | number | Buffer;

export interface RedisScript {
  /** Teaches `client` the script; `run` does it when needed, a pipeline needs it before it is made. */
  define(client: RedisClient): void;
  /** Runs the script on `client`: its reply. */
  run(client: RedisClient, keys: readonly string[], args: readonly Arg[]): Promise<unknown>;
  /** Queues the script on a pipeline or MULTI of a client `define` taught before the batch was made. */
  queue(batch: ChainableCommander, keys: readonly string[], args: readonly Arg[]): void;
}

export interface ScriptOptions {
  /**
   * The script takes any number of keys per call (it reads `#KEYS`), not exactly the highest `KEYS[n]` it
   * names; the count is sent with each call.
   */
  variadicKeys?: boolean;
}

/** What `defineCommand` adds to a client and its pipelines; ioredis's types cannot know it. */
type Defined = Partial<Record<string, (...keysAndArgs: Arg[]) => unknown>>;

/**
 * A Lua script sent by digest (`EVALSHA`), and in full once a server answers NOSCRIPT (a flushed script
 * cache, a failover, a new cluster node): ioredis's `defineCommand`, which also loads what a pipeline
 * needs before sending it. The script names its keys `KEYS[1]` … `KEYS[n]`, and every call passes exactly
 * those n keys (or any number with `variadicKeys`); on a cluster they must hash to one slot (use a hash
 * tag), or Redis refuses the script with CROSSSLOT. A batch already open lacks commands defined after it:
 * `run` on an auto-pipelining client that did not know the script waits for the tick's batch to leave, and
 * a pipeline or MULTI needs `define` before it is made.
 */
export function defineScript(source: string, o: ScriptOptions = {}): RedisScript {
  const name = `portcullis_${createHash('sha1').update(source).digest('hex').slice(0, 16)}`;
  const numberOfKeys = o.variadicKeys
    ? undefined
    : Math.max(0, ...[...source.matchAll(/KEYS\[(\d+)\]/g)].map((m) => Number(m[1])));
  const taught = new WeakSet<RedisClient>();
  const learning = new WeakMap<RedisClient, Promise<void>>();
  const ready = new WeakSet<RedisClient>();
  const define = (client: RedisClient): void => {
    if (taught.has(client)) return;
    // with numberOfKeys declared the first argument is the first key, which ioredis's auto-pipelining
    // routes a cluster command by; without it, the key count was, and the script joined another node's batch
    client.defineCommand(name, { lua: source, numberOfKeys });
    taught.add(client);
  };
  const call = (target: object, keys: readonly string[], args: readonly Arg[]): unknown => {
    if (numberOfKeys !== undefined && keys.length !== numberOfKeys) {
      throw new Error(`script ${name}: given ${keys.length} keys, it uses ${numberOfKeys}`);
    }
    const command = (target as Defined)[name];
    if (command === undefined) throw new Error(`script ${name}: not defined on the client before the batch`);
    return numberOfKeys === undefined
      ? command.call(target, keys.length, ...keys, ...args)
      : command.call(target, ...keys, ...args);
  };
  return {
    define,
    async run(client, keys, args) {
      if (!ready.has(client)) {
        let learnt = learning.get(client);
        if (!learnt) {
          define(client);
          // an auto-pipeline opened earlier in this tick lacks the command: every first caller waits for it to leave
          learnt = client.options.enableAutoPipelining ? new Promise(setImmediate) : Promise.resolve();
          learning.set(client, learnt);
          void learnt.then(() => ready.add(client));
        }
        await learnt;
      }
      return await call(client, keys, args);
    },
    queue(batch, keys, args) {
      call(batch, keys, args);
    },
  };
}
