import { describe, expect, it } from 'vitest';
import { ConfigError } from './errors.js';
import { checkRateLimitConfig, parseRateLimitConfig } from './rate-limit-parse.js';

describe('parseRateLimitConfig on typed data (custom resources, xDS)', () => {
  it('accepts JSON-typed scalars', () => {
    const config = parseRateLimitConfig('ns/name', {
      domain: 'd',
      descriptors: [{ key: 'k', rate_limit: { unit: 'SECOND', requests_per_unit: 3 }, shadow_mode: true }],
    });
    expect(config.descriptors[0]).toMatchObject({
      key: 'k',
      shadowMode: true,
      rateLimit: { unlimited: false, unit: 'SECOND', requestsPerUnit: 3 },
    });
  });

  it('names the source and path of each problem', () => {
    expect(() =>
      parseRateLimitConfig('ns/name', {
        domain: 'd',
        descriptors: [{ key: 'k', rate_limit: { unit: 'SECOND', requests_per_unit: 2 ** 32 } }],
      }),
    ).toThrow(
      new ConfigError([
        'ns/name: descriptors[0].rate_limit.requests_per_unit: expected an unsigned 32-bit integer, got 4294967296',
      ]),
    );
  });

  it('rejects non-string keys and values of the wrong shape', () => {
    const result = checkRateLimitConfig({ domain: ['x'], descriptors: [{ key: { a: 1 } }, 'bare'] });
    expect(result).toEqual({
      problems: [
        { path: ['domain'], message: 'expected a string, got a list' },
        { path: ['domain'], message: 'config file cannot have empty domain' },
        { path: ['descriptors', 0, 'key'], message: 'expected a string, got a mapping' },
        { path: ['descriptors', 0, 'key'], message: 'descriptor has empty key' },
        { path: ['descriptors', 1], message: "expected a mapping, got 'bare'" },
      ],
    });
  });

  it('lets a replaces entry name a limit anywhere in the domain', () => {
    const config = parseRateLimitConfig('x', {
      domain: 'd',
      descriptors: [
        {
          key: 'a',
          descriptors: [{ key: 'b', rate_limit: { unit: 'minute', requests_per_unit: 1, name: 'deep' } }],
        },
        { key: 'c', rate_limit: { unit: 'minute', requests_per_unit: 9, replaces: [{ name: 'deep' }] } },
      ],
    });
    expect(config.descriptors[1]?.rateLimit?.replaces).toEqual(['deep']);
  });
});
