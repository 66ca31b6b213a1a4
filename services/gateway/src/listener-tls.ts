import { loadServerTls, type Logger, type ServerTls } from '@portcullis/kit';
import type { Settings } from './settings.js';

/**
 * The certificate of the public listener, from `GATEWAY_TLS_CERT`/`GATEWAY_TLS_KEY`, followed every
 * `GATEWAY_TLS_RELOAD_INTERVAL` as the ratelimit follows its own; undefined for plain HTTP. Throws
 * `SettingsError` naming the variable and file that cannot be read, or both when they do not belong together.
 */
export async function loadListenerTls(tls: Settings['tls'], log: Logger): Promise<ServerTls | undefined> {
  if (!tls) return undefined;
  return loadServerTls(
    {
      cert: { name: 'GATEWAY_TLS_CERT', path: tls.cert },
      key: { name: 'GATEWAY_TLS_KEY', path: tls.key },
      reloadIntervalMs: tls.reloadIntervalMs,
    },
    log.child({ component: 'tls' }),
  );
}
