import { readFile } from 'node:fs/promises';
import { availableParallelism } from 'node:os';

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

/**
 * The CPUs this process may use: `cpus` capped by the cgroup quota in `cpuMax` (a Kubernetes CPU limit), as
 * Go 1.25 caps GOMAXPROCS; at least 1.
 */
export function cpusAllowed(i: { cpus: number; cpuMax: string | undefined }): number {
  const quota = i.cpuMax === undefined ? undefined : cpusOfQuota(i.cpuMax);
  return Math.max(1, Math.min(i.cpus, quota ?? i.cpus));
}

/** `cpusAllowed` on this machine: the default number of worker processes of a service. */
export async function usableCpus(): Promise<number> {
  const cpuMax = await readFile(CPU_MAX_FILE, 'utf8').catch(() => undefined);
  return cpusAllowed({ cpus: availableParallelism(), cpuMax });
}
