import type { Logger, Part } from '@portcullis/kit';
import type { Settings } from './settings.js';
import type { InboxStore } from './store/types.js';

/** Every `INBOX_RETENTION_TRIM_INTERVAL`, drops the captures older than their endpoint's maximum age. */
export function createRetentionPart(
  settings: Pick<Settings, 'trimIntervalMs'>,
  o: { store: InboxStore; now: () => number; log: Logger },
): Part {
  let trimTimer: NodeJS.Timeout | undefined;
  return {
    name: 'retention',
    start: () => {
      trimTimer = setInterval(() => {
        o.store.trimByAge(o.now()).catch((err: unknown) => o.log.warn({ err }, 'retention trim failed'));
      }, settings.trimIntervalMs);
      trimTimer.unref();
    },
    close: () => clearInterval(trimTimer),
  };
}
