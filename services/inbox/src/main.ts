import { runMain, startTracing } from '@portcullis/kit';
import { startInbox } from './app.js';
import { loadLogSettings, loadSettings } from './settings.js';

await runMain({
  name: 'inbox',
  loadSettings: () => loadSettings(),
  loadLogSettings: () => loadLogSettings(),
  start: async (settings, log) => {
    const tracing = startTracing(settings.tracing);
    const app = await startInbox(settings, { log });
    return {
      readiness: app.readiness,
      port: app.port,
      close: async () => {
        await app.close();
        // last, so the spans of requests drained at shutdown are exported too
        await tracing?.close();
      },
    };
  },
  onSignal: (app, signal) => app.readiness.stopTraffic(signal),
  describeReady: (app, s) => `HTTP on ${s.host}:${app.port}`,
});
