/** Polls `check` every 20 ms until it holds; throws after `timeoutMs`. For waiting, never for timing. */
export async function waitUntil(check: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Polls `probe` every 20 ms until it gives a value, and resolves with it; after `timeoutMs` throws, adding
 * `context()` (a process's output, say) to the message.
 */
export async function waitForValue<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  opts: { timeoutMs: number; what: string; context?: () => string },
): Promise<T> {
  const deadline = Date.now() + opts.timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline)
      throw new Error(`${opts.what}: not seen within ${opts.timeoutMs} ms\n${opts.context?.() ?? ''}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}
