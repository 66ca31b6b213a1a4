import { runMain } from '@portcullis/kit';
import { startInbox } from './app.js';
import { loadLogSettings, loadSettings } from './settings.js';

await runMain({
  loadSettings: () => loadSettings(),
  loadLogSettings: () => loadLogSettings(),
  start: (settings, log) => startInbox(settings, { log }),
  onSignal: (app, signal) => app.readiness.stopTraffic(signal),
});
