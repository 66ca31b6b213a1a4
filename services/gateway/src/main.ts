import { runMain } from '@portcullis/kit';
import { startGateway } from './app.js';
import { loadLogSettings, loadSettings } from './settings.js';

await runMain({
  loadSettings: () => loadSettings(),
  loadLogSettings: () => loadLogSettings(),
  start: (settings, log) => startGateway(settings, { log }),
  onSignal: (app, signal) => app.readiness.stopTraffic(signal),
});
