import cluster from 'node:cluster';
import { runMain, type MainOptions, type Running } from '../lifecycle.js';
import type { Logger } from '../log.js';
import { listenForShutdown, onPrimaryShutdown } from './shutdown-link.js';
import { resolveWorkerCount } from './worker-count.js';

/** What a primary and a serving process alike offer `runMain`: a drain begun at once on a signal. */
export interface Draining extends Running {
  /** Fails readiness (in every worker, for a primary) so the servers drain what is in flight. */
  beginShutdown(signal: NodeJS.Signals): void | Promise<void>;
}

export interface WorkersMainOptions<S, P extends Draining, A extends Draining> extends Pick<
  MainOptions<S, P | A>,
  'name' | 'loadSettings' | 'loadLogSettings' | 'describeReady'
> {
  /** The service's `*_WORKERS` setting, and whether its state lives in the process (then 1 unless set). */
  workers(settings: S): { setting: number; stateInProcess: boolean };
  /** The primary of `count` workers, each of which runs this program again and takes `startService`. */
  startPrimary(settings: S, o: { count: number; log: Logger }): Promise<P> | P;
  /** The service in this process: alone, or as one of the primary's workers. */
  startService(settings: S, log: Logger): Promise<A>;
}

/**
 * `runMain` for a service that may serve from node:cluster workers: the primary, when more than one process
 * serves, or else the service itself; in a worker, the shutdown comes from the primary (or a signal of its
 * own) and its log lines carry its id.
 */
export async function runMainWithWorkers<S, P extends Draining, A extends Draining>(
  o: WorkersMainOptions<S, P, A>,
): Promise<void> {
  const worker = cluster.worker;
  if (worker) listenForShutdown();
  await runMain<S, P | A>({
    name: o.name,
    loadSettings: o.loadSettings,
    loadLogSettings: o.loadLogSettings,
    ...(o.describeReady ? { describeReady: o.describeReady } : {}),
    ...(worker ? { logBindings: { worker: worker.id }, shutdownOn: onPrimaryShutdown } : {}),
    start: async (settings, log) => {
      const { setting, stateInProcess } = o.workers(settings);
      const count = worker ? 1 : await resolveWorkerCount(setting, stateInProcess);
      return count > 1 ? o.startPrimary(settings, { count, log }) : o.startService(settings, log);
    },
    onSignal: (app, signal) => app.beginShutdown(signal),
  });
}
