import { SettingsError } from '@portcullis/kit';
import { describe, expect, it } from 'vitest';
import { loadSettings } from './settings.js';

describe('inbox settings', () => {
  it('has the documented defaults', () => {
    const s = loadSettings({});
    expect(s).toMatchObject({
      host: '0.0.0.0',
      port: 8089,
      publicUrl: 'http://localhost:8089',
      maxBodyBytes: 1_048_576,
      maxBodyDepth: 64,
      timeouts: { requestMs: 60_000, headersMs: 10_000, idleMs: 72_000 },
      retention: { maxRequests: 500, maxAgeMs: 168 * 3_600_000 },
      redis: { type: 'single', url: '' },
      adminToken: '',
      xds: { serverUrl: '', nodeId: 'inbox' },
      sse: { heartbeatMs: 15_000, maxPendingEvents: 256 },
      ratelimit: {
        fallback: {
          createEndpointPerMinute: 10,
          capturePerMinute: 600,
          replayPerMinute: 60,
          signUpPerHour: 20,
          signInPerAddressPerMinute: 10,
          signInPerUsernamePerMinute: 5,
          maxKeys: 10_000,
        },
      },
      passwordChecks: { maxConcurrent: 2, maxQueued: 8 },
      memoryStore: { maxBytes: 256 * 1024 * 1024, maxEndpoints: 10_000 },
    });
    expect(Object.isFrozen(s)).toBe(true);
    expect(loadSettings({ INBOX_PUBLIC_URL: 'https://hooks.example/' }).publicUrl).toBe(
      'https://hooks.example',
    );
  });

  it('issue 15: keeps live-stream heartbeats inside the idle timeout', () => {
    expect(() => loadSettings({ INBOX_IDLE_TIMEOUT: '10s', INBOX_SSE_HEARTBEAT: '15s' })).toThrow(
      'INBOX_SSE_HEARTBEAT: must be shorter than INBOX_IDLE_TIMEOUT, or live streams are closed as idle',
    );
  });

  it('names every bad variable at once', () => {
    let problems: readonly string[] = [];
    try {
      loadSettings({
        INBOX_PORT: 'ten',
        INBOX_PUBLIC_URL: 'ftp://x',
        INBOX_ADMIN_TOKEN: 'short',
        INBOX_RETENTION_MAX_AGE: 'a week',
        INBOX_MAX_BODY_BYTES: '0',
        INBOX_RATELIMIT_TLS: 'true',
        INBOX_RATELIMIT_TLS_CACERT: '/nonexistent/ca.pem',
        INBOX_FALLBACK_SIGN_IN_PER_USERNAME_PER_MINUTE: '-1',
        INBOX_PASSWORD_CHECKS_MAX_CONCURRENT: '0',
        INBOX_MEMORY_MAX_BYTES: 'lots',
      });
    } catch (err: unknown) {
      if (err instanceof SettingsError) problems = err.problems;
    }
    expect(problems).toEqual([
      'INBOX_PUBLIC_URL="ftp://x": expected an absolute http or https URL',
      'INBOX_ADMIN_TOKEN: at least 32 characters',
      'INBOX_RETENTION_MAX_AGE="a week": expected a duration such as 250ms, 10s or 1h',
      'INBOX_PORT="ten": expected an integer ≥ 0 ≤ 65535',
      'INBOX_MAX_BODY_BYTES="0": expected an integer ≥ 1',
      'INBOX_RATELIMIT_TLS_CACERT="/nonexistent/ca.pem": cannot read (ENOENT)',
      'INBOX_FALLBACK_SIGN_IN_PER_USERNAME_PER_MINUTE="-1": expected an integer ≥ 0',
      'INBOX_PASSWORD_CHECKS_MAX_CONCURRENT="0": expected an integer ≥ 1',
      'INBOX_MEMORY_MAX_BYTES="lots": expected an integer ≥ 1',
    ]);
  });
});
