import { PortcullisError } from '@portcullis/kit';
import { StoreUnavailableError } from '../errors.js';

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
