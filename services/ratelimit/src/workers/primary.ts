import { superviseWorkers, type Draining, type Logger, type RunningServer } from '@portcullis/kit';
import { startDebugServer } from '../servers/debug-server.js';
import type { Settings } from '../settings.js';
import { startStatsdSink, STATSD_DROPPED } from '../stats/statsd-sink.js';
import type { StatsReading } from '../stats/stats.js';
import { ClusterView } from './cluster-view.js';
import { WorkerProfileRequests } from './worker-profiles.js';

/**
 * The primary of `count` worker processes, each running the service on the shared gRPC and HTTP ports
 * (node:cluster hands each new connection to one of them in turn). It serves the debug port and flushes
 * statsd with the workers' combined view, and replaces a worker that exits; once every worker has exited on
 * shutdown, it stops the debug port and statsd.
 */
export async function startPrimary(
  settings: Readonly<Settings>,
  o: { count: number; log: Logger },
): Promise<Draining> {
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

  const workers = superviseWorkers({
    count: o.count,
    log,
    onFork(worker) {
      view.attach(worker);
      profiles.attach(worker);
    },
    onExit(worker) {
      view
        .retire(worker.id)
        .catch((err: unknown) => log.error({ worker: worker.id, err }, 'could not keep its totals'));
    },
  });

  return {
    beginShutdown: () => workers.beginShutdown(),
    async close() {
      await workers.allExited();
      await statsd?.close();
      await debug.close();
    },
  };
}
