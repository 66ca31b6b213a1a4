import cluster from 'node:cluster';
import {
  listenForShutdown,
  onPrimaryShutdown,
  resolveWorkerCount,
  runMain,
  startTracing,
  type Logger,
} from '@portcullis/kit';
import { startGateway } from './app.js';
import { loadLogSettings, loadSettings, type Settings } from './settings.js';
import { startPrimary } from './workers/primary.js';

const worker = cluster.worker;
if (worker) listenForShutdown();

await runMain({
  name: 'gateway',
  loadSettings: () => loadSettings(),
  loadLogSettings: () => loadLogSettings(),
  ...(worker ? { logBindings: { worker: worker.id }, shutdownOn: onPrimaryShutdown } : {}),
  start: async (settings, log) => {
    const count = worker ? 1 : await resolveWorkerCount(settings.workers, settings.redis.url === '');
    return count > 1 ? startPrimary(settings, { count, log }) : startService(settings, log);
  },
  // readiness fails at once (in every worker); the servers then drain what is in flight
  onSignal: (app, signal) => app.beginShutdown(signal),
  // each worker says where it serves; a primary serves nothing itself
  describeReady: (app, s) => ('port' in app ? `HTTP on ${s.host}:${app.port}` : undefined),
});

/** The gateway in this process: alone, or as one of the primary's workers. */
async function startService(settings: Readonly<Settings>, log: Logger) {
  const tracing = startTracing(settings.tracing);
  const app = await startGateway(settings, { log });
  return {
    port: app.port,
    beginShutdown: (signal: NodeJS.Signals) => app.readiness.stopTraffic(signal),
    close: async () => {
      await app.close();
      // last, so the spans of requests drained at shutdown are exported too
      await tracing?.close();
    },
  };
}
