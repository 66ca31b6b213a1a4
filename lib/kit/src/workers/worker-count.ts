import { usableCpus } from './cpu-count.js';

/**
 * How many processes serve: the setting, else 1 when the service keeps its state in the process (a memory
 * backend or store: local mode), else the CPUs this process may use (capped by a Kubernetes CPU limit).
 */
export function workerCount(i: { setting: number; stateInProcess: boolean; cpus: number }): number {
  if (i.setting > 0) return i.setting;
  return i.stateInProcess ? 1 : i.cpus;
}

/** `workerCount` on this machine. */
export async function resolveWorkerCount(setting: number, stateInProcess: boolean): Promise<number> {
  return workerCount({ setting, stateInProcess, cpus: await usableCpus() });
}
