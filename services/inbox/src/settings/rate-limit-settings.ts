import type { EnvReader } from '@portcullis/kit';
import { readRateLimitTls, type RateLimitTlsNames } from '@portcullis/ratelimit-client';
import type { ClientTlsOptions } from '@portcullis/xds';

/** The ratelimit service (gRPC RLS v3) asked before creating an endpoint and before each capture. */
export interface RateLimitSettings {
  /** `host:port`; empty: no rate limiting (local mode). */
  url: string;
  domain: string;
  /** What to answer when the service cannot be asked: serve (`allow`) or 503 (`deny`). */
  failureMode: 'allow' | 'deny';
  /** Requests of one event-loop turn share a call (the client's `batch`). */
  batch: boolean;
  timeoutMs: number;
  /** `INBOX_RATELIMIT_TLS*`: TLS (or mTLS) to the service; plaintext when undefined. */
  tls: ClientTlsOptions | undefined;
  /**
   * Limits counted in this process when there is no service, or a call to it fails and the failure mode is
   * `allow`: the same descriptors, 0 for none.
   */
  fallback: {
    createEndpointPerMinute: number;
    capturePerMinute: number;
    replayPerMinute: number;
    signUpPerHour: number;
    signInPerAddressPerMinute: number;
    signInPerUsernamePerMinute: number;
    /** Counters held at once. */
    maxKeys: number;
  };
}

const RATELIMIT_TLS_NAMES: RateLimitTlsNames = {
  enabled: 'INBOX_RATELIMIT_TLS',
  caCert: 'INBOX_RATELIMIT_TLS_CACERT',
  clientCert: 'INBOX_RATELIMIT_TLS_CLIENT_CERT',
  clientKey: 'INBOX_RATELIMIT_TLS_CLIENT_KEY',
  serverNameOverride: 'INBOX_RATELIMIT_TLS_SAN',
};

export function readRateLimitSettings(env: EnvReader): RateLimitSettings {
  return {
    url: env.str('INBOX_RATELIMIT_URL'),
    domain: env.str('INBOX_RATELIMIT_DOMAIN', { default: 'inbox' }),
    failureMode: env.oneOf('INBOX_RATELIMIT_FAILURE_MODE', ['allow', 'deny'], { default: 'allow' }),
    batch: env.bool('INBOX_RATELIMIT_BATCH', { default: true }),
    timeoutMs: env.durationMs('INBOX_RATELIMIT_TIMEOUT', { default: '200ms', min: '1ms', max: '1m' }),
    tls: readRateLimitTls(env, RATELIMIT_TLS_NAMES),
    // examples/resources/ratelimit-inbox.yaml's limits, so falling back changes nothing per replica
    fallback: {
      createEndpointPerMinute: env.int('INBOX_FALLBACK_CREATE_ENDPOINT_PER_MINUTE', {
        default: 10,
        min: 0,
        max: 1_000_000,
      }),
      capturePerMinute: env.int('INBOX_FALLBACK_CAPTURE_PER_MINUTE', {
        default: 600,
        min: 0,
        max: 1_000_000,
      }),
      replayPerMinute: env.int('INBOX_FALLBACK_REPLAY_PER_MINUTE', { default: 60, min: 0, max: 1_000_000 }),
      signUpPerHour: env.int('INBOX_FALLBACK_SIGN_UP_PER_HOUR', { default: 20, min: 0, max: 1_000_000 }),
      signInPerAddressPerMinute: env.int('INBOX_FALLBACK_SIGN_IN_PER_ADDRESS_PER_MINUTE', {
        default: 10,
        min: 0,
        max: 1_000_000,
      }),
      signInPerUsernamePerMinute: env.int('INBOX_FALLBACK_SIGN_IN_PER_USERNAME_PER_MINUTE', {
        default: 5,
        min: 0,
        max: 1_000_000,
      }),
      maxKeys: env.int('INBOX_FALLBACK_MAX_KEYS', { default: 10_000, min: 1, max: 10_000_000 }),
    },
  };
}
