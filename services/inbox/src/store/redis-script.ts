import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { PortcullisError } from '@portcullis/kit';
import { StoreUnavailableError } from '../errors.js';

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

/** Runs Redis calls, turning their failures into `StoreUnavailableError` (the cause kept). */
export async function callRedis<T>(operation: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err: unknown) {
    if (err instanceof PortcullisError) throw err;
    throw new StoreUnavailableError(`inbox store: redis ${operation} failed`, { cause: err });
  }
}

/** Runs a MULTI or pipeline: its results, or `StoreUnavailableError` for the first command that failed. */
export function execRedis(
  operation: string,
  batch: { exec(): Promise<Array<[Error | null, unknown]> | null> },
): Promise<unknown[]> {
  return callRedis(operation, async () => {
    const replies = await batch.exec();
    if (replies === null) throw new Error('transaction aborted');
    return replies.map(([err, value]) => {
      if (err) throw err;
      return value;
    });
  });
}
