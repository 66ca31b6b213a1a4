/** Polls `check` every 20 ms until it holds; throws after `timeoutMs`. For waiting, never for timing. */
export async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export interface WaitOptions {
  /** Default 5000. */
  timeoutMs?: number;
  /** What is awaited, for the error message. */
  what?: string;
  /** More to say when the wait fails (a process's output, say). */
  context?: () => string;
}

export const isDefined = <T>(value: T | undefined): value is T => value !== undefined;

/**
 * Polls `probe` every 20 ms until `ok` holds for its value and resolves with that value; after `timeoutMs`
 * throws with the last value (and `context()`) in the message, so a failed wait shows what it saw.
 * `waitFor(() => lines.find(…), isDefined)` waits for a value to appear.
 */
export async function waitFor<T, U extends T>(
  probe: () => T | Promise<T>,
  ok: (value: T) => value is U,
  opts?: WaitOptions,
): Promise<U>;
export async function waitFor<T>(
  probe: () => T | Promise<T>,
  ok: (value: T) => boolean,
  opts?: WaitOptions,
): Promise<T>;
export async function waitFor<T>(
  probe: () => T | Promise<T>,
  ok: (value: T) => boolean,
  opts: WaitOptions = {},
): Promise<T> {
  const timeoutMs = opts.timeoutMs ?? 5000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (ok(value)) return value;
    if (Date.now() > deadline) {
      const seen = value === undefined ? 'nothing' : JSON.stringify(value);
      const extra = opts.context ? `\n${opts.context()}` : '';
      throw new Error(
        `${opts.what ?? 'condition'}: not met within ${timeoutMs} ms; last seen: ${seen}${extra}`,
      );
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}
