import { describe, expect, it } from 'vitest';
import { enforceRateLimit, toEnforcement } from './enforce.js';
import { RateLimitClientClosedError } from './errors.js';
import { createLocalRateLimitClient } from './local-client.js';
import { createLocalLimiter } from './local-limiter.js';
import { signInDescriptors, signInFallbackRules } from './sign-in.js';

const START = Date.UTC(2026, 0, 1, 12, 0, 15);

function signInClient() {
  const limiter = createLocalLimiter({
    rules: signInFallbackRules('auth', { perAddress: 3, perUsername: 2 }),
    maxKeys: 100,
    now: () => START,
  });
  return createLocalRateLimitClient(limiter);
}

describe('enforceRateLimit', () => {
  it('allows with the RateLimit headers, then limits with Retry-After from RateLimit-Reset', async () => {
    const client = signInClient();
    const ask = (ip: string, username: string) =>
      enforceRateLimit(client, { domain: 'auth', descriptors: signInDescriptors(ip, username) });
    expect(await ask('10.0.0.1', 'alice')).toEqual({
      outcome: 'allowed',
      headers: { 'RateLimit-Limit': '2', 'RateLimit-Remaining': '1', 'RateLimit-Reset': '45' },
    });
    // the user name is counted lower-cased: the same name in another case is the same counter
    expect((await ask('10.0.0.2', 'Alice')).outcome).toBe('allowed');
    expect(await ask('10.0.0.3', 'ALICE')).toEqual({
      outcome: 'limited',
      headers: {
        'RateLimit-Limit': '2',
        'RateLimit-Remaining': '0',
        'RateLimit-Reset': '45',
        'retry-after': '45',
      },
    });
    // and the address apart from the name: the third from 10.0.0.1 is its last
    expect((await ask('10.0.0.1', 'bob')).outcome).toBe('allowed');
    expect((await ask('10.0.0.1', 'carol')).outcome).toBe('allowed');
    expect((await ask('10.0.0.1', 'dave')).outcome).toBe('limited');
  });

  it('leaves a sign-in limit of 0 off', async () => {
    const limiter = createLocalLimiter({
      rules: signInFallbackRules('auth', { perAddress: 0, perUsername: 0 }),
      maxKeys: 10,
      now: () => START,
    });
    const client = createLocalRateLimitClient(limiter);
    for (let i = 0; i < 5; i++) {
      const e = await enforceRateLimit(client, {
        domain: 'auth',
        descriptors: signInDescriptors('10.0.0.1', 'alice'),
      });
      expect(e).toEqual({ outcome: 'allowed', headers: {} });
    }
  });

  it('rejects after the client is closed', async () => {
    const client = signInClient();
    client.close();
    await expect(enforceRateLimit(client, { domain: 'auth', descriptors: [] })).rejects.toBeInstanceOf(
      RateLimitClientClosedError,
    );
  });
});

describe('toEnforcement', () => {
  const decision = { overLimit: false, failedOpen: false, statuses: [], headers: [] };

  it('is unavailable when the failure mode denied: the service was not asked', () => {
    expect(toEnforcement({ ...decision, allowed: false, failedOpen: true })).toEqual({
      outcome: 'unavailable',
      headers: {},
    });
    expect(toEnforcement({ ...decision, allowed: true, failedOpen: true })).toEqual({
      outcome: 'allowed',
      headers: {},
    });
  });

  it('takes Retry-After from RateLimit-Reset whatever its case, and only a whole number', () => {
    const limited = (headers: Array<{ key: string; value: string }>) =>
      toEnforcement({ ...decision, allowed: false, overLimit: true, headers });
    expect(limited([{ key: 'ratelimit-reset', value: '7' }]).headers).toEqual({
      'ratelimit-reset': '7',
      'retry-after': '7',
    });
    expect(limited([{ key: 'X-Custom', value: '1' }])).toEqual({
      outcome: 'limited',
      headers: { 'X-Custom': '1' },
    });
    expect(limited([{ key: 'RateLimit-Reset', value: 'soon' }]).headers).toEqual({
      'RateLimit-Reset': 'soon',
    });
  });
});
