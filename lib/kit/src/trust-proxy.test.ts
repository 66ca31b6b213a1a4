import { describe, expect, it } from 'vitest';
import { createEnvReader } from './env.js';
import { SettingsError } from './errors.js';
import { readTrustProxy } from './trust-proxy.js';

describe('readTrustProxy', () => {
  it.each([
    [undefined, false],
    ['', false],
    ['false', false],
    ['true', true],
    ['1', true],
    ['127.0.0.1', ['127.0.0.1']],
    [' 10.0.0.0/8, fd00::/8 ,loopback', ['10.0.0.0/8', 'fd00::/8', 'loopback']],
  ])('reads %j as %j', (raw, expected) => {
    const env = createEnvReader(raw === undefined ? {} : { X_TRUST_PROXY: raw });
    expect(readTrustProxy(env, 'X_TRUST_PROXY')).toEqual(expected);
    env.finish();
  });

  it.each(['yes', '10.0.0.0/33', '10.0.0.1/8/8', 'ingress.local', '::1/129'])(
    'refuses %j, naming the variable',
    (raw) => {
      const env = createEnvReader({ X_TRUST_PROXY: raw });
      expect(readTrustProxy(env, 'X_TRUST_PROXY')).toBe(false);
      expect(() => env.finish()).toThrow(SettingsError);
      expect(() => env.finish()).toThrow(
        `X_TRUST_PROXY=${JSON.stringify(raw)}: expected true, false or a comma-separated list of IP addresses and CIDR ranges`,
      );
    },
  );
});
