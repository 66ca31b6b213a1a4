import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';

export interface RedisScript {
  run(redis: Redis, keys: readonly string[], args: ReadonlyArray<string | number | Buffer>): Promise<unknown>;
}

/** A Lua script sent by digest (`EVALSHA`), and in full once a server answers that it does not know it. */
export function defineScript(source: string): RedisScript {
  const sha = createHash('sha1').update(source).digest('hex');
  return {
    async run(redis, keys, args) {
      try {
        return await redis.evalsha(sha, keys.length, ...keys, ...args);
      } catch (err: unknown) {
        if (!(err instanceof Error) || !err.message.startsWith('NOSCRIPT')) throw err;
        return await redis.eval(source, keys.length, ...keys, ...args);
      }
    },
  };
}
