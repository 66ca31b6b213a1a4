import { runMain } from '@portcullis/kit';
import { startRateLimit } from './app.js';
import { loadLogSettings, loadSettings } from './settings.js';
import { startTracing } from './tracing-setup.js';

await runMain({
  loadSettings: () => loadSettings(),
  loadLogSettings: () => loadLogSettings(),
  start: async (settings, log) => {
    const tracing = startTracing(settings.tracing);
    const app = await startRateLimit(settings, { log });
    return {
      ...app,
      close: async () => {
        await app.close();
        await tracing?.close();
      },
    };
  },
  // the health check fails at once; the servers then drain what is in flight
  onSignal: (app) => app.health.set('sigterm', false),
});
