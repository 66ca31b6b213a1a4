import { PortcullisError } from '@portcullis/kit';
import { AccountsBackendError } from './errors.js';

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
