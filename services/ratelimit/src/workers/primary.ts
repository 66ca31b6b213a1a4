import cluster, { type Worker } from 'node:cluster';
import type { Logger, RunningServer } from '@portcullis/kit';
import { startDebugServer } from '../servers/debug-server.js';
import type { Settings } from '../settings.js';
import { startStatsdSink, STATSD_DROPPED } from '../stats/statsd-sink.js';
import type { StatsReading } from '../stats/stats.js';
import { ClusterView } from './cluster-view.js';
import { sendToWorker } from './messages.js';
import { WorkerProfileRequests } from './worker-profiles.js';

/** How long the workers have to drain and exit after SIGTERM before they are killed (the pod allows 30 s). */
const SHUTDOWN_TIMEOUT_MS = 25_000;
/** A worker that ran this long before it exited is restarted at once; quicker exits back off. */
const HEALTHY_RUN_MS = 30_000;

/** Wait before restarting a worker that exited after `failures` quick exits in a row: 0.1 s doubling to 10 s. */
export function restartDelayMs(failures: number): number {
  return Math.min(100 * 2 ** failures, 10_000);
}

export interface Primary {
  /** Tells every worker to fail its health check and drain. */
  beginShutdown(): void;
  /** Resolves once every worker has exited (killed past `SHUTDOWN_TIMEOUT_MS`), then stops the debug port and statsd. */
  close(): Promise<void>;
}

/**
 * The primary of `count` worker processes, each running the service on the shared gRPC and HTTP ports
 * (node:cluster hands each new connection to one of them in turn). It serves the debug port and flushes
 * statsd with the workers' combined view, and replaces a worker that exits.
 */
export async function startPrimary(
  settings: Readonly<Settings>,
  o: { count: number; log: Logger },
): Promise<Primary> {
  const { log } = o;
  const view = new ClusterView({ expected: o.count, log });
  const profiles = new WorkerProfileRequests();
  const { statsd: to, flushIntervalMs, extraTags } = settings.stats;
  // the sink runs here, so its own counter joins the workers' combined reading here
  const dropped = { value: 0 };
  const read = async (): Promise<StatsReading> => {
    const reading = await view.drainReading();
    return { ...reading, counters: [...reading.counters, [STATSD_DROPPED, dropped.value]] };
  };
  const statsd = to.enabled
    ? startStatsdSink({ ...to, flushIntervalMs, tags: extraTags, read, log, dropped })
    : undefined;
  const debug: RunningServer = await startDebugServer({
    ...settings.debug,
    timeouts: settings.http.timeouts,
    view,
    log,
    workers: profiles,
  });

  let stopping = false;
  const running = new Set<Worker>();
  const restarts = new Set<NodeJS.Timeout>();
  const allExited = (): Promise<void> =>
    new Promise((resolve) => {
      const check = (): void => {
        if (running.size === 0) resolve();
      };
      check();
      cluster.on('exit', check);
    });

  const fork = (failures: number): void => {
    const worker = cluster.fork();
    const startedAt = Date.now();
    running.add(worker);
    view.attach(worker);
    profiles.attach(worker);
    log.info({ worker: worker.id, pid: worker.process.pid }, 'worker started');
    worker.once('exit', (code, signal) => {
      running.delete(worker);
      view
        .retire(worker.id)
        .catch((err: unknown) => log.error({ worker: worker.id, err }, 'could not keep its totals'));
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
      for (const worker of running) sendToWorker(worker, { kind: 'shutdown' });
    },
    async close() {
      const timer = setTimeout(() => {
        log.error({ workers: [...running].map((w) => w.id) }, 'workers did not exit in time; killing them');
        for (const worker of running) worker.process.kill('SIGKILL');
      }, SHUTDOWN_TIMEOUT_MS);
      await allExited();
      clearTimeout(timer);
      await statsd?.close();
      await debug.close();
    },
  };
}
