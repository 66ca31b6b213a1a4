import cluster, { type Worker } from 'node:cluster';
import type { Logger } from '../log.js';
import { sendShutdown } from './shutdown-link.js';

/** How long the workers have to drain and exit after SIGTERM before they are killed (the pod allows 30 s). */
const SHUTDOWN_TIMEOUT_MS = 25_000;
/** A worker that ran this long before it exited is restarted at once; quicker exits back off. */
const HEALTHY_RUN_MS = 30_000;

/** Wait before restarting a worker that exited after `failures` quick exits in a row: 0.1 s doubling to 10 s. */
export function restartDelayMs(failures: number): number {
  return Math.min(100 * 2 ** failures, 10_000);
}

export interface SupervisorOptions {
  count: number;
  log: Logger;
  /** Set in each worker's environment on top of this process's (a secret every worker must share, say). */
  env?: Record<string, string>;
  /** Called for each worker forked, first and replacements alike, before it sends anything. */
  onFork?(worker: Worker): void;
  /** Called when a worker has exited, before any replacement is forked. */
  onExit?(worker: Worker): void;
}

export interface Supervisor {
  /** Stops restarting workers and tells each to drain and exit. */
  beginShutdown(): void;
  /** Resolves once every worker has exited; those still running after 25 s are killed. */
  allExited(): Promise<void>;
}

/**
 * Runs `count` workers of this program (node:cluster hands each new connection on the shared ports to one
 * of them in turn) and replaces a worker that exits, backing off when workers keep exiting quickly.
 */
export function superviseWorkers(o: SupervisorOptions): Supervisor {
  const { log } = o;
  let stopping = false;
  const running = new Set<Worker>();
  const restarts = new Set<NodeJS.Timeout>();

  const fork = (failures: number): void => {
    const worker = cluster.fork(o.env);
    const startedAt = Date.now();
    running.add(worker);
    o.onFork?.(worker);
    log.info({ worker: worker.id, pid: worker.process.pid }, 'worker started');
    worker.once('exit', (code, signal) => {
      running.delete(worker);
      o.onExit?.(worker);
      if (stopping) {
        log.info({ worker: worker.id, code, signal }, 'worker exited');
        return;
      }
      const quick = Date.now() - startedAt < HEALTHY_RUN_MS;
      const delayMs = quick ? restartDelayMs(failures) : 0;
      log.error({ worker: worker.id, code, signal, delayMs }, 'worker exited; starting another');
      const timer = setTimeout(() => {
        restarts.delete(timer);
        fork(quick ? failures + 1 : 0);
      }, delayMs);
      restarts.add(timer);
    });
  };
  log.info({ workers: o.count }, 'starting worker processes');
  for (let i = 0; i < o.count; i++) fork(0);

  return {
    beginShutdown() {
      stopping = true;
      for (const timer of restarts) clearTimeout(timer);
      for (const worker of running) sendShutdown(worker);
    },
    async allExited() {
      const timer = setTimeout(() => {
        log.error({ workers: [...running].map((w) => w.id) }, 'workers did not exit in time; killing them');
        for (const worker of running) worker.process.kill('SIGKILL');
      }, SHUTDOWN_TIMEOUT_MS);
      await new Promise<void>((resolve) => {
        const check = (): void => {
          if (running.size > 0) return;
          cluster.off('exit', check);
          resolve();
        };
        cluster.on('exit', check);
        check();
      });
      clearTimeout(timer);
    },
  };
}
