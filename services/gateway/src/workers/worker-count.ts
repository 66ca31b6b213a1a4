import { usableCpus } from '@portcullis/kit';

/**
 * How many worker processes serve: the setting, else 1 when accounts, sessions and applications are kept in
 * the process (no Redis: local mode), else the CPUs this process may use (capped by a Kubernetes CPU limit).
 */
export function workerCount(i: { setting: number; inMemory: boolean; cpus: number }): number {
  if (i.setting > 0) return i.setting;
  return i.inMemory ? 1 : i.cpus;
}

/** `workerCount` on this machine. */
export async function resolveWorkerCount(setting: number, inMemory: boolean): Promise<number> {
  return workerCount({ setting, inMemory, cpus: await usableCpus() });
}
