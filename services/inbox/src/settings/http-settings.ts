import {
  DEFAULT_HTTP_TIMEOUTS,
  DEFAULT_MAX_JSON_DEPTH,
  readHttpTimeouts,
  readTrustProxy,
  type EnvReader,
  type HttpTimeouts,
  type TrustProxy,
} from '@portcullis/kit';

/** The inbox's HTTP server: where it listens, what a request may hold, how it drains. */
export interface HttpSettings {
  host: string;
  port: number;
  maxBodyBytes: number;
  /** How deep a JSON body may nest (`{}` is 1): management bodies, and captured bodies shown parsed. */
  maxBodyDepth: number;
  timeouts: HttpTimeouts;
  /** After SIGTERM, how long `/readyz` fails before the server stops accepting (load balancers catch up). */
  shutdownDelayMs: number;
  /** Peers whose `X-Forwarded-Proto` (so `Secure` cookies) and `X-Forwarded-For` count. */
  trustProxy: TrustProxy;
}

export function readHttpSettings(env: EnvReader): HttpSettings {
  return {
    host: env.str('INBOX_HOST', { default: '0.0.0.0' }),
    // 8090 is the operator's health port in local mode
    port: env.int('INBOX_PORT', { default: 8089, min: 0, max: 65_535 }),
    maxBodyBytes: env.int('INBOX_MAX_BODY_BYTES', { default: 1_048_576, min: 1, max: 1024 ** 3 }),
    maxBodyDepth: env.int('INBOX_MAX_BODY_DEPTH', { default: DEFAULT_MAX_JSON_DEPTH, min: 1, max: 1024 }),
    // senders' bodies may be large: 1 MiB (the default limit) in 60 s is 17 KB/s
    timeouts: readHttpTimeouts(
      env,
      {
        requestMs: 'INBOX_REQUEST_TIMEOUT',
        headersMs: 'INBOX_HEADERS_TIMEOUT',
        idleMs: 'INBOX_IDLE_TIMEOUT',
      },
      { ...DEFAULT_HTTP_TIMEOUTS, requestMs: 60_000 },
    ),
    shutdownDelayMs: env.durationMs('INBOX_SHUTDOWN_DELAY', { default: '5s', min: '0s', max: '5m' }),
    trustProxy: readTrustProxy(env, 'INBOX_TRUST_PROXY'),
  };
}
