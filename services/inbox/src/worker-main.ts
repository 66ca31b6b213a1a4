import { runMain } from '@portcullis/kit';
import { loadLogSettings, loadSettings } from './settings.js';
import { startWorker } from './worker/worker-app.js';

await runMain({
  loadSettings: () => loadSettings(),
  loadLogSettings: () => loadLogSettings(),
  start: (settings, log) => startWorker(settings, { log }),
});
