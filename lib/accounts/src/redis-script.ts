import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { PortcullisError } from '@portcullis/kit';
import { AccountsBackendError } from './errors.js';

export interface RedisScript {
  run(redis: Redis, keys: readonly string[], args: ReadonlyArray<string | number>): Promise<unknown>;
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

/** Runs Redis calls, turning their failures into `AccountsBackendError` (the cause kept). */
export async function callRedis<T>(operation: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err: unknown) {
    if (err instanceof PortcullisError) throw err;
    throw new AccountsBackendError(`accounts backend: redis ${operation} failed`, { cause: err });
  }
}

/** HGETALL's reply as a field map, or undefined for a missing key (Redis answers `{}`). */
export function toFieldMap(reply: Record<string, string>): Record<string, string> | undefined {
  return Object.keys(reply).length === 0 ? undefined : reply;
}
