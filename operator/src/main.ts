import { runMain, startTracing } from '@portcullis/kit';
import { startOperator } from './app.js';
import { loadLogSettings, loadSettings } from './settings.js';

await runMain({
  loadSettings: () => loadSettings(),
  loadLogSettings: () => loadLogSettings(),
  start: async (settings, log) => {
    const tracing = startTracing(settings.tracing);
    const app = await startOperator(settings, { log });
    return {
      close: async () => {
        await app.close();
        // last, so the spans of the shutdown itself are exported too
        await tracing?.close();
      },
    };
  },
});
