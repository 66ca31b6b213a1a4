import type { EnvReader } from '@portcullis/kit';
import {
  INBOX_RATELIMIT_ENV,
  readRateLimitClientSettings,
  type RateLimitClientSettings,
} from '@portcullis/ratelimit-client';

/**
 * The ratelimit service (gRPC RLS v3) asked before creating an endpoint and before each capture:
 * `INBOX_RATELIMIT_*` (lib/ratelimit-client's `INBOX_RATELIMIT_ENV` names); an empty `target` (no
 * `INBOX_RATELIMIT_URL`, local mode) is no service.
 */
export interface RateLimitSettings extends RateLimitClientSettings {
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

export function readRateLimitSettings(env: EnvReader): RateLimitSettings {
  return {
    ...readRateLimitClientSettings(env, INBOX_RATELIMIT_ENV, { url: '', domain: 'inbox' }),
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
