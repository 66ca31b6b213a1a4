import { performance } from 'node:perf_hooks';

/** One call; resolves to `undefined` when the answer was right, else to a short label of what was wrong. */
export type Call = (i: number) => Promise<string | undefined>;

export interface DriveOptions {
  call: Call;
  /** Calls in flight at any time (closed loop: each finished call starts the next). */
  concurrency: number;
  /** Calls start during this long; the ones in flight then are awaited and counted. */
  durationMs: number;
}

export interface DriveResult {
  latenciesMs: Float64Array;
  durationMs: number;
  /** Wrong answers by label. */
  errors: Map<string, number>;
}

const MAX_LABEL_CHARS = 80;

export async function drive(o: DriveOptions): Promise<DriveResult> {
  const stopAt = performance.now() + o.durationMs;
  const result = await runClosedLoop(o, (startMs) => startMs < stopAt);
  return { ...result, durationMs: o.durationMs };
}

/** Exactly `calls` calls, `concurrency` at a time; the duration runs from the first start to the last answer. */
export async function driveCalls(
  o: Omit<DriveOptions, 'durationMs'> & { calls: number },
): Promise<DriveResult> {
  const startedAt = performance.now();
  const result = await runClosedLoop(o, (_startMs, i) => i < o.calls);
  return { ...result, durationMs: performance.now() - startedAt };
}

async function runClosedLoop(
  o: Omit<DriveOptions, 'durationMs'>,
  isStarting: (startMs: number, i: number) => boolean,
): Promise<Omit<DriveResult, 'durationMs'>> {
  const latencies: number[] = [];
  const errors = new Map<string, number>();
  let next = 0;
  const worker = async (): Promise<void> => {
    for (;;) {
      const start = performance.now();
      if (!isStarting(start, next)) return;
      let problem: string | undefined;
      try {
        problem = await o.call(next++);
      } catch (err: unknown) {
        problem = err instanceof Error ? err.message : String(err);
      }
      latencies.push(performance.now() - start);
      if (problem !== undefined) {
        const label = problem.slice(0, MAX_LABEL_CHARS);
        errors.set(label, (errors.get(label) ?? 0) + 1);
      }
    }
  };
  await Promise.all(Array.from({ length: o.concurrency }, worker));
  return { latenciesMs: Float64Array.from(latencies), errors };
}
