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

  it('documents every variable it reads in the README, each spelled whole in the source', () => {
    expect(
      checkSettingsDocs({
        readme: fileURLToPath(new URL('../README.md', import.meta.url)),
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

describe('gateway settings: issue 20 OpenAPI document', () => {
  it('serves it publicly by default, and takes only public, auth or off', () => {
    expect(loadSettings({}).openapi).toBe('public');
    expect(loadSettings({ GATEWAY_OPENAPI: 'off' }).openapi).toBe('off');
    expect(problemsOf({ GATEWAY_OPENAPI: 'private' })).toEqual([
      'GATEWAY_OPENAPI="private": expected one of public, auth, off',
    ]);
  });
});
