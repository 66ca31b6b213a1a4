import { runMain, startTracing } from '@portcullis/kit';
import { loadLogSettings, loadWorkerSettings } from './settings.js';
import { startWorker } from './worker/worker-app.js';

await runMain({
  name: 'inbox-worker',
  loadSettings: () => loadWorkerSettings(),
  loadLogSettings: () => loadLogSettings(),
  start: async (settings, log) => {
    const tracing = startTracing(settings.tracing);
    const app = await startWorker(settings, { log });
    return {
      close: async () => {
        await app.close();
        // last, so the spans of deliveries finished at shutdown are exported too
        await tracing?.close();
      },
    };
  },
});
