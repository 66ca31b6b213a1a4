import { resolve } from 'node:path';

export interface BenchSettings {
  /** `BENCH_DURATION_MS`: the measured window of each scenario, after its warm-up. */
  durationMs: number;
  /** `BENCH_CPU_PROF_DIR`: where the measured service writes a CPU profile on exit; unset for none. */
  cpuProfDir: string | undefined;
}

/** The settings every benchmark shares; a bad value stops it, naming the variable. */
export function readBenchSettings(env: NodeJS.ProcessEnv): BenchSettings {
  const raw = env.BENCH_DURATION_MS ?? '5000';
  const durationMs = Number(raw);
  if (!Number.isInteger(durationMs) || durationMs < 100) {
    throw new Error(`BENCH_DURATION_MS="${raw}": expected an integer ≥ 100`);
  }
  const dir = env.BENCH_CPU_PROF_DIR;
  return { durationMs, cpuProfDir: dir ? resolve(dir) : undefined };
}

/** A count setting of one benchmark (`BENCH_INSTANCES`, …): an integer ≥ 1, `fallback` when unset. */
export function readCount(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name] ?? String(fallback);
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name}="${raw}": expected an integer ≥ 1`);
  return n;
}
