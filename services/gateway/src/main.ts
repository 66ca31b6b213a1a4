import { runMainWithWorkers, startTracing, type Logger } from '@portcullis/kit';
import { startGateway } from './app.js';
import { loadLogSettings, loadSettings, type Settings } from './settings.js';
import { startPrimary } from './workers/primary.js';

await runMainWithWorkers({
  name: 'gateway',
  loadSettings: () => loadSettings(),
  loadLogSettings: () => loadLogSettings(),
  workers: (s) => ({ setting: s.workers, stateInProcess: s.redis.url === '' }),
  startPrimary,
  startService,
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
