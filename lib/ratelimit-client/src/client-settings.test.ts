import { createEnvReader } from '@portcullis/kit';
import { describe, expect, it } from 'vitest';
import {
  GATEWAY_RATELIMIT_ENV,
  INBOX_RATELIMIT_ENV,
  readRateLimitClientSettings,
} from './client-settings.js';

describe('readRateLimitClientSettings', () => {
  it('has the defaults, and none is no service only where the default URL is not empty', () => {
    const gateway = { url: 'localhost:8081', domain: 'gateway' };
    expect(readRateLimitClientSettings(createEnvReader({}), GATEWAY_RATELIMIT_ENV, gateway)).toEqual({
      target: 'localhost:8081',
      domain: 'gateway',
      failureMode: 'allow',
      batch: true,
      timeoutMs: 200,
      tls: undefined,
    });
    const none = createEnvReader({ GATEWAY_RATELIMIT_URL: 'none' });
    expect(readRateLimitClientSettings(none, GATEWAY_RATELIMIT_ENV, gateway).target).toBe('');
    const inbox = createEnvReader({ INBOX_RATELIMIT_URL: 'none' });
    expect(readRateLimitClientSettings(inbox, INBOX_RATELIMIT_ENV, { url: '', domain: 'inbox' }).target).toBe(
      'none',
    );
  });

  it('names every bad variable of the family it is given', () => {
    const env = createEnvReader({
      INBOX_RATELIMIT_FAILURE_MODE: 'maybe',
      INBOX_RATELIMIT_BATCH: 'often',
      INBOX_RATELIMIT_TIMEOUT: '2m',
      INBOX_RATELIMIT_TLS_SAN: 'rls.internal',
    });
    readRateLimitClientSettings(env, INBOX_RATELIMIT_ENV, { url: '', domain: 'inbox' });
    expect(() => env.finish()).toThrow(
      [
        'INBOX_RATELIMIT_FAILURE_MODE="maybe": expected one of allow, deny',
        'INBOX_RATELIMIT_BATCH="often": expected true or false',
        'INBOX_RATELIMIT_TIMEOUT="2m": expected a duration ≥ 1ms ≤ 1m',
        'INBOX_RATELIMIT_TLS_SAN: set, but INBOX_RATELIMIT_TLS is not true',
      ].join('\n  '),
    );
  });
});
