import type { EnvReader, Logger } from '@portcullis/kit';
import type { ClientTlsOptions } from '@portcullis/xds';
import { createLocalRateLimitClient } from './local-client.js';
import { createRateLimitClient } from './rate-limit-client.js';
import { readRateLimitTls, type RateLimitTlsNames } from './tls-settings.js';
import type { LocalLimiter, RateLimitClient } from './types.js';

/** The variables of one service's rate-limit client, each written out whole (the tables below). */
export interface RateLimitClientEnvNames {
  readonly url: string;
  readonly domain: string;
  readonly failureMode: string;
  readonly batch: string;
  readonly timeout: string;
  readonly tls: RateLimitTlsNames;
}

// Every name `readRateLimitClientSettings` reads, per service: one grep for a name finds its table here.

export const GATEWAY_RATELIMIT_ENV: RateLimitClientEnvNames = {
  url: 'GATEWAY_RATELIMIT_URL',
  domain: 'GATEWAY_RATELIMIT_DOMAIN',
  failureMode: 'GATEWAY_RATELIMIT_FAILURE_MODE',
  batch: 'GATEWAY_RATELIMIT_BATCH',
  timeout: 'GATEWAY_RATELIMIT_TIMEOUT',
  tls: {
    enabled: 'GATEWAY_RATELIMIT_TLS',
    caCert: 'GATEWAY_RATELIMIT_TLS_CACERT',
    clientCert: 'GATEWAY_RATELIMIT_TLS_CLIENT_CERT',
    clientKey: 'GATEWAY_RATELIMIT_TLS_CLIENT_KEY',
    serverNameOverride: 'GATEWAY_RATELIMIT_TLS_SAN',
  },
};

export const INBOX_RATELIMIT_ENV: RateLimitClientEnvNames = {
  url: 'INBOX_RATELIMIT_URL',
  domain: 'INBOX_RATELIMIT_DOMAIN',
  failureMode: 'INBOX_RATELIMIT_FAILURE_MODE',
  batch: 'INBOX_RATELIMIT_BATCH',
  timeout: 'INBOX_RATELIMIT_TIMEOUT',
  tls: {
    enabled: 'INBOX_RATELIMIT_TLS',
    caCert: 'INBOX_RATELIMIT_TLS_CACERT',
    clientCert: 'INBOX_RATELIMIT_TLS_CLIENT_CERT',
    clientKey: 'INBOX_RATELIMIT_TLS_CLIENT_KEY',
    serverNameOverride: 'INBOX_RATELIMIT_TLS_SAN',
  },
};

export interface RateLimitClientSettings {
  /** `host:port` or `xds:///…`; empty: no ratelimit service, the in-process fallback answers every call. */
  target: string;
  /** The domain the service's own requests are asked in. */
  domain: string;
  /** What to answer when the service cannot be asked: serve (`allow`) or 503 (`deny`). */
  failureMode: 'allow' | 'deny';
  /** Requests of one event-loop turn share a call (the client's `batch`). */
  batch: boolean;
  timeoutMs: number;
  /** TLS (or mTLS) to the service; plaintext when undefined. */
  tls: ClientTlsOptions | undefined;
}

/**
 * One service's rate-limit client settings under `names`; bad values are recorded on `env`, naming the
 * variable. With a non-empty default URL, `none` is how to ask for no service.
 */
export function readRateLimitClientSettings(
  env: EnvReader,
  names: RateLimitClientEnvNames,
  defaults: { url: string; domain: string },
): RateLimitClientSettings {
  const url = env.str(names.url, { default: defaults.url });
  return {
    // an empty variable reads as unset (the default), so "no service" needs a word of its own
    target: defaults.url !== '' && url === 'none' ? '' : url,
    domain: env.str(names.domain, { default: defaults.domain }),
    failureMode: env.oneOf(names.failureMode, ['allow', 'deny'], { default: 'allow' }),
    batch: env.bool(names.batch, { default: true }),
    timeoutMs: env.durationMs(names.timeout, { default: '200ms', min: '1ms', max: '1m' }),
    tls: readRateLimitTls(env, names.tls),
  };
}

export interface RateLimitClientDeps {
  /** Answers every call without a service, and failed calls with failure mode `allow`. */
  fallback: LocalLimiter;
  log: Logger;
  /** The bootstrap of an `xds:///` target; unused for any other. */
  xds?: { serverUri: string; nodeId: string };
}

/** The client `settings` describe: of the ratelimit service, or of `fallback` alone when there is none. */
export function createRateLimitClientFromSettings(
  settings: Readonly<RateLimitClientSettings>,
  deps: RateLimitClientDeps,
): RateLimitClient {
  if (settings.target === '') return createLocalRateLimitClient(deps.fallback);
  return createRateLimitClient({
    target: settings.target,
    ...(deps.xds && settings.target.startsWith('xds:') ? { xds: deps.xds } : {}),
    timeoutMs: settings.timeoutMs,
    failureMode: settings.failureMode,
    batch: settings.batch,
    fallback: deps.fallback,
    tls: settings.tls,
    log: deps.log,
  });
}
