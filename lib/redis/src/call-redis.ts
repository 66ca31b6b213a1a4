import { PortcullisError } from '@portcullis/kit';

/** The package's own backend error, made from a Redis failure (the cause kept). */
export type BackendErrorFactory = (message: string, cause: unknown) => Error;

export interface RedisCaller {
  /** Runs Redis calls, turning their failures into the package's backend error. */
  call: <T>(operation: string, fn: () => Promise<T>) => Promise<T>;
  /** Runs a MULTI or pipeline: its replies, or the backend error for the first command that failed. */
  exec: (
    operation: string,
    batch: { exec(): Promise<Array<[Error | null, unknown]> | null> },
  ) => Promise<unknown[]>;
}

/**
 * `call` and `exec` for one package: `${what}: redis ${operation} failed` as `toError` makes it. A
 * `PortcullisError` thrown inside passes unchanged.
 */
export function createRedisCaller(what: string, toError: BackendErrorFactory): RedisCaller {
  const call = async <T>(operation: string, fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err: unknown) {
      if (err instanceof PortcullisError) throw err;
      throw toError(`${what}: redis ${operation} failed`, err);
    }
  };
  return {
    call,
    exec: (operation, batch) =>
      call(operation, async () => {
        const replies = await batch.exec();
        if (replies === null) throw new Error('transaction aborted');
        return replies.map(([err, value]) => {
          if (err) throw err;
          return value;
        });
      }),
  };
}
