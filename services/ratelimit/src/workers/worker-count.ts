import { readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import type { BackendType } from '../settings.js';

/** The cgroup v2 file holding this container's CPU limit: `<quota> <period>` in µs, or `max <period>`. */
const CPU_MAX_FILE = '/sys/fs/cgroup/cpu.max';

/**
 * The CPUs the cgroup quota in `cpuMax` (the text of `cpu.max`) allows, rounded up, at least 1; `undefined`
 * for no limit (`max`) or a text that is not a quota.
 */
export function cpusOfQuota(cpuMax: string): number | undefined {
  const [quota, period] = cpuMax.trim().split(/\s+/);
  const q = Number(quota);
  const p = Number(period);
  if (!Number.isFinite(q) || !Number.isFinite(p) || q <= 0 || p <= 0) return undefined;
  return Math.max(1, Math.ceil(q / p));
}

export interface WorkerCountInputs {
  /** `RATELIMIT_WORKERS`; 0 is the default. */
  setting: number;
  backendType: BackendType;
  /** `os.availableParallelism()`. */
  cpus: number;
  /** The text of `cpu.max`, or `undefined` where there is none (no cgroup v2). */
  cpuMax: string | undefined;
}

/**
 * How many worker processes serve: the setting, else the CPUs this process may use (the cgroup quota, a
 * Kubernetes CPU limit, caps them, as Go 1.25 caps GOMAXPROCS), else 1 with the memory backend, whose
 * counters live in the process.
 */
export function workerCount(i: WorkerCountInputs): number {
  if (i.setting > 0) return i.setting;
  if (i.backendType === 'memory') return 1;
  const quota = i.cpuMax === undefined ? undefined : cpusOfQuota(i.cpuMax);
  return Math.max(1, Math.min(i.cpus, quota ?? i.cpus));
}

/** `workerCount` on this machine. */
export async function resolveWorkerCount(setting: number, backendType: BackendType): Promise<number> {
  const cpuMax = await readFile(CPU_MAX_FILE, 'utf8').catch(() => undefined);
  return workerCount({ setting, backendType, cpus: availableParallelism(), cpuMax });
}
