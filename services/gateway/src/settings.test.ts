import { SettingsError } from '@portcullis/kit';
import { describe, expect, it } from 'vitest';
import { loadSettings } from './settings.js';

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
      'GATEWAY_FALLBACK_SIGN_IN_PER_ADDRESS_PER_MINUTE="many": expected an integer ≥ 0',
      'GATEWAY_FALLBACK_MAX_KEYS="0": expected an integer ≥ 1',
      'GATEWAY_PASSWORD_CHECKS_MAX_CONCURRENT="0": expected an integer ≥ 1',
      'GATEWAY_PASSWORD_CHECKS_MAX_QUEUED="-1": expected an integer ≥ 0',
    ]);
  });
});
