import type { Logger } from '@portcullis/kit';
import { quietLog } from '@portcullis/testing';
import { startRateLimit, type RateLimitApp } from '../src/app.js';
import { loadSettings } from '../src/settings.js';
import { LOOPBACK_LISTENERS } from './harness.js';

export interface XdsRateLimitOptions {
  /** Settings on top of the xDS ones (a node id, a fixed gRPC port, a Redis backend). */
  env?: Record<string, string>;
  /** The service's log (quiet by default). */
  log?: Logger;
}

/**
 * The ratelimit service in this process, taking its configuration over xDS from `xds` (`host:port`, retried
 * every 100 ms), counting in memory, on loopback ports the system picks (read them back from `app.ports`).
 */
export function startXdsRateLimit(xds: string, o: XdsRateLimitOptions = {}): Promise<RateLimitApp> {
  return startRateLimit(
    loadSettings({
      BACKEND_TYPE: 'memory',
      CONFIG_TYPE: 'GRPC_XDS_SOTW',
      CONFIG_GRPC_XDS_SERVER_URL: xds,
      CONFIG_GRPC_XDS_SERVER_CONNECT_RETRY_INTERVAL: '100ms',
      ...LOOPBACK_LISTENERS,
      ...o.env,
    }),
    { log: o.log ?? quietLog },
  );
}
