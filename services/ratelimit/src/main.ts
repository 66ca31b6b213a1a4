import { runMain } from '@portcullis/kit';
import { startRateLimit } from './app.js';
import { loadLogSettings, loadSettings } from './settings.js';

await runMain({
  loadSettings: () => loadSettings(),
  loadLogSettings: () => loadLogSettings(),
  start: (settings, log) => startRateLimit(settings, { log }),
  // the health check fails at once; the servers then drain what is in flight
  onSignal: (app) => app.health.set('sigterm', false),
});
