import cluster from 'node:cluster';
import {
  listenForShutdown,
  onPrimaryShutdown,
  resolveWorkerCount,
  runMain,
  startTracing,
  type Logger,
} from '@portcullis/kit';
import { startInbox } from './app.js';
import { startPrimary } from './cluster/primary.js';
import { loadLogSettings, loadSettings, type Settings } from './settings.js';

const worker = cluster.worker;
if (worker) listenForShutdown();

await runMain({
  name: 'inbox',
  loadSettings: () => loadSettings(),
  loadLogSettings: () => loadLogSettings(),
  ...(worker ? { logBindings: { worker: worker.id }, shutdownOn: onPrimaryShutdown } : {}),
  start: async (settings, log) => {
    const store = settings.redis.url === '' ? 'memory' : 'redis';
    const count = worker ? 1 : await resolveWorkerCount(settings.workers, store === 'memory');
    return count > 1
      ? startPrimary({ count, sessionKeys: settings.accounts.sessionKeys, log })
      : startServer(settings, log);
  },
  // readiness fails at once (in every worker), then the server drains what is in flight
  onSignal: (app, signal) => app.beginShutdown(signal),
  // each worker says where it serves; a primary serves nothing itself
  describeReady: (app, s) => ('port' in app ? `HTTP on ${s.host}:${app.port}` : undefined),
});

/** The inbox's HTTP server in this process: alone, or as one of the primary's workers. */
async function startServer(settings: Readonly<Settings>, log: Logger) {
  const tracing = startTracing(settings.tracing);
  const app = await startInbox(settings, { log });
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
