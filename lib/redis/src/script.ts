import { createHash } from 'node:crypto';
import type { ChainableCommander } from 'ioredis';
import type { RedisClient } from './types.js';

type Arg = string | number | Buffer;

export interface RedisScript {
  /** Teaches `client` the script for `queue`: a pipeline or MULTI made after it knows the script. */
  define(client: RedisClient): void;
  /** Runs the script on `client` (any client, taught or not, and teaches it): its reply. */
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
 * A Lua script. The script names its keys `KEYS[1]` … `KEYS[n]`, and every call passes exactly those n keys
 * (or any number with `variadicKeys`); on a cluster they must hash to one slot (use a hash tag), or Redis
 * refuses the script with CROSSSLOT.
 *
 * `run` sends Redis's own EVAL (until the client has had a reply) and EVALSHA, resent as EVAL when a server
 * answers NOSCRIPT (a flushed script cache, a failover, a new cluster node). Both are built-in commands,
 * which every ioredis pipeline has from its prototype, so an auto-pipeline takes the script whenever it
 * was opened. A command added with ioredis's `defineCommand` lives on the client only and is copied into a
 * pipeline when the pipeline is made: one opened before the client learnt it, and held behind a batch still
 * waiting for replies, refused the script (`pipeline[functionName] is not a function`) after queueing its
 * reply callback, and the batch's replies then went to the wrong callers until ioredis threw
 * `results[i] is not iterable` from a timer, killing the process (issue 34).
 *
 * `queue` puts it on an explicit pipeline or MULTI, which ioredis never holds open, with `defineCommand`:
 * EVAL the first time per connection, then EVALSHA, a NOSCRIPT one resent on its own after the batch.
 * `define` the client (or `run` on it) before making the batch.
 */
export function defineScript(source: string, o: ScriptOptions = {}): RedisScript {
  const sha = createHash('sha1').update(source).digest('hex');
  const name = `portcullis_${sha.slice(0, 16)}`;
  const numberOfKeys = o.variadicKeys
    ? undefined
    : Math.max(0, ...[...source.matchAll(/KEYS\[(\d+)\]/g)].map((m) => Number(m[1])));
  const taught = new WeakSet<RedisClient>();
  // clients that had a reply: their server (most likely) holds the script, so they send its digest
  const loaded = new WeakSet<RedisClient>();
  const checkKeys = (keys: readonly string[]): void => {
    if (numberOfKeys !== undefined && keys.length !== numberOfKeys) {
      throw new Error(`script ${name}: given ${keys.length} keys, it uses ${numberOfKeys}`);
    }
  };
  const define = (client: RedisClient): void => {
    if (taught.has(client)) return;
    // with numberOfKeys declared the first argument is the first key, which ioredis's cluster pipelines
    // route a command by; without it, the key count was, and the script joined another node's batch
    client.defineCommand(name, { lua: source, numberOfKeys });
    taught.add(client);
  };
  return {
    define,
    async run(client, keys, args) {
      checkKeys(keys);
      // for a pipeline or MULTI made later; the run itself never calls the defined command
      define(client);
      // ioredis knows EVAL's and EVALSHA's key positions (after the count): a cluster routes by the first key
      const keysAndArgs = [...keys, ...args];
      if (!loaded.has(client)) {
        const reply = await client.eval(source, keys.length, ...keysAndArgs);
        loaded.add(client);
        return reply;
      }
      try {
        return await client.evalsha(sha, keys.length, ...keysAndArgs);
      } catch (err: unknown) {
        if (!isNoScript(err)) throw err;
        return await client.eval(source, keys.length, ...keysAndArgs);
      }
    },
    queue(batch, keys, args) {
      checkKeys(keys);
      const command = (batch as object as Defined)[name];
      if (command === undefined)
        throw new Error(`script ${name}: not defined on the client before the batch`);
      if (numberOfKeys === undefined) {
        command.call(batch, keys.length, ...keys, ...args);
      } else {
        command.call(batch, ...keys, ...args);
      }
    },
  };
}

/** A Redis error reply starts with its code (ioredis's own script resend reads it the same way). */
function isNoScript(err: unknown): boolean {
  return err instanceof Error && err.message.startsWith('NOSCRIPT');
}
