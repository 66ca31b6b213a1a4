import { runMainWithWorkers, startTracing, type Logger } from '@portcullis/kit';
import { startInbox } from './app.js';
import { startPrimary } from './cluster/primary.js';
import { loadLogSettings, loadSettings, type Settings } from './settings.js';

await runMainWithWorkers({
  name: 'inbox',
  loadSettings: () => loadSettings(),
  loadLogSettings: () => loadLogSettings(),
  workers: (s) => ({ setting: s.workers, stateInProcess: s.redis.url === '' }),
  startPrimary: (s, { count, log }) => startPrimary({ count, sessionKeys: s.accounts.sessionKeys, log }),
  startService: startServer,
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
