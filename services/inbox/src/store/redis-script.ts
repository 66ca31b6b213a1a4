import { PortcullisError, UnavailableError } from '@portcullis/kit';

/** Runs Redis calls, turning their failures into `UnavailableError` (the cause kept). */
export async function callRedis<T>(operation: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err: unknown) {
    if (err instanceof PortcullisError) throw err;
    throw new UnavailableError(`inbox store: redis ${operation} failed`, { cause: err });
  }
}

/** Runs a MULTI or pipeline: its results, or `UnavailableError` for the first command that failed. */
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
