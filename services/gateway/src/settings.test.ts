import { fileURLToPath } from 'node:url';
import { SettingsError } from '@portcullis/kit';
import { checkSettingsDocs, LIB_SOURCE_DIRS, settingsProblems } from '@portcullis/testing';
import { describe, expect, it } from 'vitest';
import { loadSettings } from './settings.js';

const problemsOf = (env: Record<string, string>): readonly string[] => settingsProblems(loadSettings, env);

describe('gateway settings: issue 17 bounds', () => {
  it('refuses durations out of range, naming the variable and the range, where it used to take any', () => {
    expect(
      problemsOf({
        GATEWAY_RATELIMIT_TIMEOUT: '0',
        GATEWAY_JWT_TTL: '100ms',
        GATEWAY_SESSION_TTL: '1000h',
        GATEWAY_XDS_RETRY_INTERVAL: '1ms',
        GATEWAY_IDLE_TIMEOUT: '2h',
      }),
    ).toEqual([
      'GATEWAY_JWT_TTL="100ms": expected a duration ≥ 1s ≤ 720h',
      'GATEWAY_SESSION_TTL="1000h": expected a duration ≥ 1s ≤ 720h',
      'GATEWAY_XDS_RETRY_INTERVAL="1ms": expected a duration ≥ 10ms ≤ 5m',
      'GATEWAY_RATELIMIT_TIMEOUT="0": expected a duration ≥ 1ms ≤ 1m',
      'GATEWAY_IDLE_TIMEOUT="2h": expected a duration ≥ 10ms ≤ 1h',
    ]);
    expect(problemsOf({ GATEWAY_MAX_BODY_DEPTH: '5000', GATEWAY_MAX_BODY_BYTES: '2147483648' })).toEqual([
      'GATEWAY_MAX_BODY_BYTES="2147483648": expected an integer ≥ 1 ≤ 1073741824',
      'GATEWAY_MAX_BODY_DEPTH="5000": expected an integer ≥ 1 ≤ 1024',
    ]);
  });

  it('takes the bounds themselves', () => {
    const s = loadSettings({
      GATEWAY_JWT_TTL: '1s',
      GATEWAY_SESSION_TTL: '720h',
      GATEWAY_RATELIMIT_TIMEOUT: '1ms',
    });
    expect(s.jwt.ttlSeconds).toBe(1);
    expect(s.session.ttlSeconds).toBe(720 * 3600);
    expect(s.ratelimit.timeoutMs).toBe(1);
  });

  it('is frozen all the way down', () => {
    const s = loadSettings({ GATEWAY_SESSION_KEYS: 'a'.repeat(32) });
    expect(() => {
      (s.ratelimit.fallback as { maxKeys: number }).maxKeys = 1;
    }).toThrow(TypeError);
    expect(() => s.session.keys.push('b'.repeat(32))).toThrow(TypeError);
    expect(() => {
      (s.timeouts as { idleMs: number }).idleMs = 1;
    }).toThrow(TypeError);
  });

  it('documents every variable it reads in docs/settings.md, each spelled whole in the source', () => {
    expect(
      checkSettingsDocs({
        readme: fileURLToPath(new URL('../docs/settings.md', import.meta.url)),
        load: loadSettings,
        sources: [fileURLToPath(new URL('.', import.meta.url)), ...LIB_SOURCE_DIRS],
      }),
    ).toEqual([]);
  });
});

describe('gateway settings: issue 15 caps', () => {
  it('has the documented defaults, and GATEWAY_RATELIMIT_URL=none means no service', () => {
    const s = loadSettings({});
    expect(s.ratelimit.fallback).toEqual({
      signInPerAddressPerMinute: 10,
      signInPerUsernamePerMinute: 5,
      maxKeys: 10_000,
    });
    expect(s.passwordChecks).toEqual({ maxConcurrent: 2, maxQueued: 8 });
    expect(loadSettings({ GATEWAY_RATELIMIT_URL: 'none' }).ratelimit.target).toBe('');
    expect(loadSettings({ GATEWAY_RATELIMIT_URL: '' }).ratelimit.target).toBe('localhost:8081');
  });

  it('names every bad value', () => {
    let problems: readonly string[] = [];
    try {
      loadSettings({
        GATEWAY_FALLBACK_SIGN_IN_PER_ADDRESS_PER_MINUTE: 'many',
        GATEWAY_FALLBACK_MAX_KEYS: '0',
        GATEWAY_PASSWORD_CHECKS_MAX_CONCURRENT: '0',
        GATEWAY_PASSWORD_CHECKS_MAX_QUEUED: '-1',
      });
    } catch (err: unknown) {
      if (err instanceof SettingsError) problems = err.problems;
    }
    expect(problems).toEqual([
      'GATEWAY_FALLBACK_SIGN_IN_PER_ADDRESS_PER_MINUTE="many": expected an integer ≥ 0 ≤ 1000000',
      'GATEWAY_FALLBACK_MAX_KEYS="0": expected an integer ≥ 1 ≤ 10000000',
      'GATEWAY_PASSWORD_CHECKS_MAX_CONCURRENT="0": expected an integer ≥ 1 ≤ 64',
      'GATEWAY_PASSWORD_CHECKS_MAX_QUEUED="-1": expected an integer ≥ 0 ≤ 10000',
    ]);
  });
});

describe('gateway settings: identity providers and the token cache (issue 20)', () => {
  const issuer = { issuer: 'https://id.example', jwksUrl: 'https://id.example/jwks', audience: 'api' };

  it('reads the issuers and the key and token cache bounds', () => {
    const s = loadSettings({
      GATEWAY_AUTH: 'jwt',
      GATEWAY_JWT_ISSUERS: JSON.stringify([issuer]),
      GATEWAY_JWKS_CACHE_MIN: '30s',
      GATEWAY_JWT_CACHE_SIZE: '0',
    });
    expect(s.idp).toEqual({
      issuers: [
        {
          issuer: issuer.issuer,
          jwksUrl: issuer.jwksUrl,
          audiences: ['api'],
          algorithms: ['RS256'],
          usernameClaim: 'preferred_username',
        },
      ],
      jwksTimeoutMs: 5000,
      jwksCacheMinMs: 30_000,
      jwksCacheMaxMs: 3_600_000,
      jwksRefetchIntervalMs: 30_000,
    });
    expect(s.tokenCacheSize).toBe(0);
  });

  it('names each problem: a bad issuer field, issuers without jwt mode, bounds out of range or crossed', () => {
    expect(
      problemsOf({
        GATEWAY_JWT_ISSUERS: JSON.stringify([{ ...issuer, algorithms: ['HS256'] }, issuer]),
        GATEWAY_JWKS_REFETCH_INTERVAL: '10ms',
        GATEWAY_JWT_CACHE_SIZE: '2000000',
      }),
    ).toEqual([
      'GATEWAY_JWT_ISSUERS[0].algorithms: expected a non-empty list of RS256, ES256, EdDSA',
      'GATEWAY_JWKS_REFETCH_INTERVAL="10ms": expected a duration ≥ 1s ≤ 1h',
      'GATEWAY_JWT_CACHE_SIZE="2000000": expected an integer ≥ 0 ≤ 1000000',
    ]);
    expect(problemsOf({ GATEWAY_JWT_ISSUERS: JSON.stringify([issuer]) })).toEqual([
      'GATEWAY_JWT_ISSUERS: set, but GATEWAY_AUTH is not jwt',
    ]);
    expect(problemsOf({ GATEWAY_JWKS_CACHE_MIN: '2h', GATEWAY_JWKS_CACHE_MAX: '1h' })).toEqual([
      'GATEWAY_JWKS_CACHE_MIN: longer than GATEWAY_JWKS_CACHE_MAX',
    ]);
  });
});

describe('gateway settings: issue 20 TLS listener', () => {
  it('serves plain HTTP without a certificate, HTTPS with both files, reloaded every 10 s unless told', () => {
    expect(loadSettings({}).tls).toBeUndefined();
    expect(loadSettings({ GATEWAY_TLS_CERT: '/tls/tls.crt', GATEWAY_TLS_KEY: '/tls/tls.key' }).tls).toEqual({
      cert: '/tls/tls.crt',
      key: '/tls/tls.key',
      reloadIntervalMs: 10_000,
    });
    const never = loadSettings({
      GATEWAY_TLS_CERT: '/tls/tls.crt',
      GATEWAY_TLS_KEY: '/tls/tls.key',
      GATEWAY_TLS_RELOAD_INTERVAL: '0',
    });
    expect(never.tls?.reloadIntervalMs).toBe(0);
  });

  it('refuses a certificate without its key, a key without its certificate, and an interval out of range', () => {
    expect(problemsOf({ GATEWAY_TLS_CERT: '/tls/tls.crt' })).toEqual([
      'GATEWAY_TLS_KEY: needed with GATEWAY_TLS_CERT',
    ]);
    expect(problemsOf({ GATEWAY_TLS_KEY: '/tls/tls.key' })).toEqual([
      'GATEWAY_TLS_CERT: needed with GATEWAY_TLS_KEY',
    ]);
    expect(problemsOf({ GATEWAY_TLS_RELOAD_INTERVAL: '10ms' })).toEqual([
      'GATEWAY_TLS_RELOAD_INTERVAL="10ms": expected 0 (never) or a duration ≥ 100ms ≤ 24h',
    ]);
  });
});

describe('gateway settings: issue 20 OpenAPI document', () => {
  it('serves it publicly by default, and takes only public, auth or off', () => {
    expect(loadSettings({}).openapi).toBe('public');
    expect(loadSettings({ GATEWAY_OPENAPI: 'off' }).openapi).toBe('off');
    expect(problemsOf({ GATEWAY_OPENAPI: 'private' })).toEqual([
      'GATEWAY_OPENAPI="private": expected one of public, auth, off',
    ]);
  });
});

describe('gateway settings: issue 20 API keys and the admin API', () => {
  it('takes the key from x-api-key and has no admin API by default', () => {
    const s = loadSettings({});
    expect(s.apiKeyHeader).toBe('x-api-key');
    expect(s.adminToken).toBe('');
    expect(loadSettings({ GATEWAY_API_KEY_HEADER: 'X-App-Key' }).apiKeyHeader).toBe('x-app-key');
  });

  it('refuses a bad header name, a short admin token, and the admin path as base path', () => {
    expect(
      problemsOf({
        GATEWAY_API_KEY_HEADER: 'Authorization',
        GATEWAY_ADMIN_TOKEN: 'short',
      }),
    ).toEqual([
      'GATEWAY_ADMIN_TOKEN: at least 32 characters',
      'GATEWAY_API_KEY_HEADER="authorization": expected a header name (a-z, 0-9, -), not authorization',
    ]);
    expect(problemsOf({ GATEWAY_ADMIN_TOKEN: 'x'.repeat(32), GATEWAY_BASE_PATH: 'admin/api' })).toEqual([
      "GATEWAY_BASE_PATH: admin is the admin API's path while GATEWAY_ADMIN_TOKEN is set",
    ]);
  });
});

describe('gateway settings: refresh tokens and the admin token', () => {
  it('refuses refresh tokens outside jwt mode, a refresh lifetime not above the access one, a short admin token', () => {
    expect(
      problemsOf({
        GATEWAY_REFRESH_TOKENS: 'cookie',
        GATEWAY_JWT_TTL: '2h',
        GATEWAY_REFRESH_TTL: '1h',
        GATEWAY_ADMIN_TOKEN: 'short',
      }),
    ).toEqual([
      'GATEWAY_REFRESH_TOKENS: on, but GATEWAY_AUTH is not jwt',
      'GATEWAY_REFRESH_TTL: not longer than GATEWAY_JWT_TTL',
      'GATEWAY_ADMIN_TOKEN: at least 32 characters',
    ]);
    expect(problemsOf({ GATEWAY_REFRESH_TOKENS: 'header', GATEWAY_REFRESH_TTL: '3000h' })).toEqual([
      'GATEWAY_REFRESH_TOKENS="header": expected one of off, body, cookie',
      'GATEWAY_REFRESH_TTL="3000h": expected a duration ≥ 1m ≤ 2160h',
    ]);
  });

  it('is off by default, 720h when on', () => {
    expect(loadSettings({}).refresh).toEqual({ mode: 'off', ttlSeconds: 720 * 3600 });
    expect(loadSettings({ GATEWAY_AUTH: 'jwt', GATEWAY_REFRESH_TOKENS: 'body' }).refresh.mode).toBe('body');
  });
});
