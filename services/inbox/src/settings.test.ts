import { fileURLToPath } from 'node:url';
import { SettingsError, type EnvSource } from '@portcullis/kit';
import { checkSettingsDocs, LIB_SOURCE_DIRS, settingsProblems } from '@portcullis/testing';
import { describe, expect, it } from 'vitest';
import { loadCliSettings } from './cli/cli-settings.js';
import { loadSettings } from './settings.js';

const problemsOf = (env: Record<string, string>): readonly string[] => settingsProblems(loadSettings, env);

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
      sse: { heartbeatMs: 15_000, maxPendingEvents: 256, maxStreams: 10_000, maxStreamsPerAddress: 100 },
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
      search: { maxScan: 1000, maxExport: 10_000, maxImportBytes: 16 * 1024 * 1024 },
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
      'INBOX_PORT="ten": expected an integer ≥ 0 ≤ 65535',
      'INBOX_MAX_BODY_BYTES="0": expected an integer ≥ 1 ≤ 1073741824',
      'INBOX_RETENTION_MAX_AGE="a week": expected a duration such as 250ms, 10s or 1h',
      'INBOX_RATELIMIT_TLS_CACERT="/nonexistent/ca.pem": cannot read (ENOENT)',
      'INBOX_FALLBACK_SIGN_IN_PER_USERNAME_PER_MINUTE="-1": expected an integer ≥ 0 ≤ 1000000',
      'INBOX_PASSWORD_CHECKS_MAX_CONCURRENT="0": expected an integer ≥ 1 ≤ 64',
      'INBOX_MEMORY_MAX_BYTES="lots": expected an integer ≥ 1 ≤ 17179869184',
    ]);
  });

  it('issue 19: bounds the search scan, the export and the import', () => {
    expect(
      problemsOf({
        INBOX_SEARCH_MAX_SCAN: '99',
        INBOX_EXPORT_MAX_REQUESTS: '0',
        INBOX_IMPORT_MAX_BYTES: '1e9',
      }),
    ).toEqual([
      'INBOX_SEARCH_MAX_SCAN="99": expected an integer ≥ 100 ≤ 100000',
      'INBOX_EXPORT_MAX_REQUESTS="0": expected an integer ≥ 1 ≤ 100000',
      'INBOX_IMPORT_MAX_BYTES="1e9": expected an integer ≥ 1024 ≤ 1073741824',
    ]);
  });

  it('issue 17: refuses what it used to raise silently (Math.max) or take as it came, naming the range', () => {
    expect(
      problemsOf({
        INBOX_RETENTION_TRIM_INTERVAL: '1ms',
        INBOX_SSE_HEARTBEAT: '1ms',
        INBOX_WORKER_CLAIM_IDLE: '20ms',
        INBOX_WORKER_POLL_INTERVAL: '0',
        INBOX_RATELIMIT_TIMEOUT: '0',
        INBOX_RETENTION_MAX_AGE: '0',
        INBOX_SESSION_TTL: '10ms',
        INBOX_XDS_RETRY_INTERVAL: '10m',
      }),
    ).toEqual([
      'INBOX_RETENTION_MAX_AGE="0": expected a duration ≥ 10ms ≤ 8760h',
      'INBOX_RETENTION_TRIM_INTERVAL="1ms": expected a duration ≥ 10ms ≤ 24h',
      'INBOX_XDS_RETRY_INTERVAL="10m": expected a duration ≥ 10ms ≤ 5m',
      'INBOX_SSE_HEARTBEAT="1ms": expected a duration ≥ 10ms ≤ 1h',
      'INBOX_RATELIMIT_TIMEOUT="0": expected a duration ≥ 1ms ≤ 1m',
      'INBOX_WORKER_CLAIM_IDLE="20ms": expected a duration ≥ 30ms ≤ 24h',
      'INBOX_WORKER_POLL_INTERVAL="0": expected a duration ≥ 10ms ≤ 5m',
      'INBOX_SESSION_TTL="10ms": expected a duration ≥ 1s ≤ 720h',
    ]);
    expect(problemsOf({ INBOX_WORKER_MAX_IN_FLIGHT: '5000', INBOX_RETENTION_MAX_REQUESTS: '0' })).toEqual([
      'INBOX_RETENTION_MAX_REQUESTS="0": expected an integer ≥ 1 ≤ 100000',
      'INBOX_WORKER_MAX_IN_FLIGHT="5000": expected an integer ≥ 1 ≤ 1024',
    ]);
  });

  it('issue 37: reads INBOX_WORKERS, 0 (the default) to 64; more than one refused with the memory store', () => {
    expect(loadSettings({}).workers).toBe(0);
    expect(loadSettings({ REDIS_URL: 'redis://r:6379', INBOX_WORKERS: '4' }).workers).toBe(4);
    expect(loadSettings({ INBOX_WORKERS: '1' }).workers).toBe(1);
    expect(problemsOf({ REDIS_URL: 'redis://r:6379', INBOX_WORKERS: '65' })).toEqual([
      'INBOX_WORKERS="65": expected an integer ≥ 0 ≤ 64',
    ]);
    expect(problemsOf({ INBOX_WORKERS: '2' })).toEqual([
      'INBOX_WORKERS=2: without INBOX_REDIS_URL the captures live in the process, so more than one worker would split them',
    ]);
  });

  it('issue 19: takes a secrets key as 64 hex digits or base64 of 32 bytes, and nothing else', () => {
    const hex = 'ab'.repeat(32);
    expect(loadSettings({ INBOX_SECRETS_KEY: hex }).secretsKey).toBe(hex);
    expect(loadSettings({}).secretsKey).toBe('');
    expect(problemsOf({ INBOX_SECRETS_KEY: 'ab'.repeat(16) })).toEqual([
      'INBOX_SECRETS_KEY: expected 32 bytes as 64 hex digits or base64 (openssl rand -hex 32)',
    ]);
  });

  it('takes the lowest values it allows as they are', () => {
    const s = loadSettings({
      INBOX_RETENTION_TRIM_INTERVAL: '10ms',
      INBOX_SSE_HEARTBEAT: '10ms',
      INBOX_WORKER_CLAIM_IDLE: '30ms',
      INBOX_WORKER_POLL_INTERVAL: '10ms',
    });
    expect(s.trimIntervalMs).toBe(10);
    expect(s.sse.heartbeatMs).toBe(10);
    expect(s.worker).toMatchObject({ claimIdleMs: 30, pollMs: 10 });
  });

  it('is frozen all the way down, the CLI settings too', () => {
    const s = loadSettings({});
    expect(() => {
      (s.worker as { pollMs: number }).pollMs = 1;
    }).toThrow(TypeError);
    expect(() => {
      (s.ratelimit.fallback as { maxKeys: number }).maxKeys = 1;
    }).toThrow(TypeError);
    const cli = loadCliSettings({ INBOX_URL: 'http://inbox.test' });
    expect(cli.inboxUrl).toBe('http://inbox.test');
    expect(() => {
      (cli as { token: string | undefined }).token = 'x';
    }).toThrow(TypeError);
  });

  it('documents every variable it and the CLI read in docs/settings.md, each spelled whole in the source', () => {
    const load = (env: EnvSource): void => {
      loadSettings(env);
      loadCliSettings(env);
    };
    expect(
      checkSettingsDocs({
        readme: fileURLToPath(new URL('../docs/settings.md', import.meta.url)),
        load,
        sources: [fileURLToPath(new URL('.', import.meta.url)), ...LIB_SOURCE_DIRS],
      }),
    ).toEqual([]);
  });
});
