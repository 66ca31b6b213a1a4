/** Registers how to stop something the benchmark started. */
export type OnCleanup = (stop: () => Promise<void>) => void;

/**
 * Runs a benchmark's `main`, then stops whatever it registered, last first, also on Ctrl-C and SIGTERM
 * (children, temporary directories). A failure is printed to stderr and sets exit code 1.
 */
export async function runBench(main: (onCleanup: OnCleanup) => Promise<void>): Promise<void> {
  const state: { stops: Array<() => Promise<void>>; cleaning?: Promise<void>; signalled: boolean } = {
    stops: [],
    signalled: false,
  };
  /** Stops registered once cleaning had begun (something `main` was still starting): run at once. */
  const late: Array<Promise<void>> = [];
  const onCleanup: OnCleanup = (stop) => {
    if (state.cleaning) late.push(stop().catch(() => undefined));
    else state.stops.push(stop);
  };
  const cleanUp = async (): Promise<void> => {
    state.cleaning ??= (async () => {
      for (const stop of state.stops.reverse()) await stop().catch(() => undefined);
    })();
    await state.cleaning;
    await Promise.allSettled(late);
  };
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    process.once(signal, () => {
      state.signalled = true;
      void cleanUp().finally(() => process.exit(code));
    });
  }
  try {
    await main(onCleanup);
  } catch (err: unknown) {
    // Once interrupted, `main` fails as its children stop under it: nothing worth reporting.
    if (!state.signalled) {
      process.stderr.write(
        `bench failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
      );
      process.exitCode = 1;
    }
  } finally {
    await cleanUp();
  }
}
