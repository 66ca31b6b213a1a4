/**
 * `fn` over `items` with at most `parallelism` calls in flight (0 = all at once), results in item order.
 * After a call fails no new one starts, and the returned promise rejects with that failure.
 */
export function mapWithParallelism<T, R>(
  items: readonly T[],
  parallelism: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  if (parallelism === 0 || parallelism >= items.length) return Promise.all(items.map(fn));
  return new Promise((resolve, reject) => {
    const results = new Array<R>(items.length);
    let next = 0;
    let done = 0;
    let failed = false;
    const start = (): void => {
      const i = next++;
      fn(items[i] as T).then(
        (value) => {
          results[i] = value;
          if (++done === items.length) resolve(results);
          else if (!failed && next < items.length) start();
        },
        (err: unknown) => {
          failed = true;
          reject(err);
        },
      );
    };
    for (let k = 0; k < parallelism; k++) start();
  });
}
