import { usableCpus } from '@portcullis/kit';

/**
 * How many processes serve HTTP: the setting, else 1 with the memory store (its captures live in the
 * process), else the CPUs this process may use (capped by a Kubernetes CPU limit).
 */
export function workerCount(i: { setting: number; store: 'memory' | 'redis'; cpus: number }): number {
  if (i.setting > 0) return i.setting;
  if (i.store === 'memory') return 1;
  return i.cpus;
}

/** `workerCount` on this machine. */
export async function resolveWorkerCount(setting: number, store: 'memory' | 'redis'): Promise<number> {
  return workerCount({ setting, store, cpus: await usableCpus() });
}
