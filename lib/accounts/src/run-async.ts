/**
 * Runs synchronous store code behind a promise: a throw becomes a rejection, as callers of an async
 * interface expect (a validation error must not escape before the first `await`).
 */
export function runAsync<T>(fn: () => T): Promise<T> {
  return new Promise((resolve) => resolve(fn()));
}
