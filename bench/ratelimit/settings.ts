const MAX_REPEAT = 20;

export interface RateLimitBenchSettings {
  /** `BENCH_REPEAT`: measured runs per scenario, after one warm-up; the table shows their medians. */
  repeat: number;
  /**
   * `BENCH_ONLY`: run the scenario of this name, or else those whose name holds it, with their ceilings and
   * upstream rows; all when unset.
   */
  only: string | undefined;
}

/** The rate-limit benchmark's own settings; a bad value stops it, naming the variable. */
export function readRateLimitBenchSettings(env: NodeJS.ProcessEnv): RateLimitBenchSettings {
  const raw = env.BENCH_REPEAT ?? '1';
  const repeat = Number(raw);
  if (!Number.isInteger(repeat) || repeat < 1 || repeat > MAX_REPEAT) {
    throw new Error(`BENCH_REPEAT="${raw}": expected an integer from 1 to ${MAX_REPEAT}`);
  }
  return { repeat, only: env.BENCH_ONLY || undefined };
}
