/**
 * `fn` over `items` with at most `parallelism` calls in flight (0 = all at once), results in item order.
 * After a call fails no new one starts, and the returned promise rejects with that failure.
 */
export async function mapWithParallelism<T, R>(
  items: readonly T[],
  parallelism: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  if (parallelism === 0 || parallelism >= items.length) return Promise.all(items.map(fn));
  const results = new Array<R>(items.length);
  let next = 0;
  let failed = false;
  const lane = async (): Promise<void> => {
    while (!failed && next < items.length) {
      const i = next++;
      const pending = fn(items[i] as T);
      pending.catch(() => (failed = true));
      results[i] = await pending;
    }
  };
  await Promise.all(Array.from({ length: parallelism }, lane));
  return results;
}
