import { usableCpus } from '@portcullis/kit';
import type { BackendType } from '../settings.js';

/**
 * How many worker processes serve: the setting, else the CPUs this process may use (capped by a Kubernetes
 * CPU limit), else 1 with the memory backend, whose counters live in the process.
 */
export function workerCount(i: { setting: number; backendType: BackendType; cpus: number }): number {
  if (i.setting > 0) return i.setting;
  if (i.backendType === 'memory') return 1;
  return i.cpus;
}

/** `workerCount` on this machine. */
export async function resolveWorkerCount(setting: number, backendType: BackendType): Promise<number> {
  return workerCount({ setting, backendType, cpus: await usableCpus() });
}
