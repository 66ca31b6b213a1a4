import { createLogger, onShutdownSignal, SettingsError } from '@portcullis/kit';
import { startGateway } from './app.js';
import { loadLogSettings, loadSettings } from './settings.js';

try {
  const settings = loadSettings();
  const log = createLogger(settings.log);
  const app = await startGateway(settings, { log });
  onShutdownSignal(() => app.close(), log);
} catch (err: unknown) {
  const log = createLogger(loadLogSettings());
  if (err instanceof SettingsError) log.fatal({ problems: err.problems }, 'invalid settings');
  else log.fatal({ err }, 'start-up failed');
  log.flush();
  process.exitCode = 1;
}
