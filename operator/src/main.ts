import { runMain } from '@portcullis/kit';
import { startOperator } from './app.js';
import { loadLogSettings, loadSettings } from './settings.js';

await runMain({
  loadSettings: () => loadSettings(),
  loadLogSettings: () => loadLogSettings(),
  start: (settings, log) => startOperator(settings, { log }),
});
