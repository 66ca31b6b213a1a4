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

  it('reads rate_limits, algorithm and burst', () => {
    const config = parseRateLimitConfig('x', {
      domain: 'd',
      descriptors: [
        {
          key: 'k',
          rate_limits: [
            { unit: 'second', requests_per_unit: 10, algorithm: 'sliding_window' },
            { unit: 'hour', requests_per_unit: 1000, name: 'hourly' },
            { unit: 'second', requests_per_unit: 5, burst: 20 },
          ],
        },
      ],
    });
    const [rule] = config.descriptors;
    expect(rule?.rateLimit).toMatchObject({ unit: 'SECOND', algorithm: 'sliding_window', burst: undefined });
    expect(rule?.moreRateLimits).toMatchObject([
      { unit: 'HOUR', algorithm: 'fixed_window', name: 'hourly' },
      { unit: 'SECOND', requestsPerUnit: 5, algorithm: 'token_bucket', burst: 20 },
    ]);
  });

  it('names every misuse of rate_limits, algorithm and burst', () => {
    expect(
      checkRateLimitConfig({
        domain: 'd',
        descriptors: [
          {
            key: 'both',
            rate_limit: { unit: 'second', requests_per_unit: 1 },
            rate_limits: [{ unit: 'hour', requests_per_unit: 2 }],
          },
          { key: 'empty', rate_limits: [] },
          { key: 'unlimited', rate_limits: [{ unlimited: true }] },
          { key: 'algo', rate_limit: { unit: 'second', requests_per_unit: 1, algorithm: 'leaky' } },
          { key: 'tb', rate_limit: { unit: 'second', requests_per_unit: 1, algorithm: 'token_bucket' } },
          {
            key: 'mix',
            rate_limit: { unit: 'second', requests_per_unit: 1, burst: 2, algorithm: 'fixed_window' },
          },
          { key: 'zero', rate_limit: { unit: 'second', requests_per_unit: 0, burst: 0 } },
          { key: 'free', rate_limit: { unlimited: true, burst: 3 } },
        ],
      }),
    ).toEqual({
      problems: [
        {
          path: ['descriptors', 0, 'rate_limits'],
          message: 'rate_limit and rate_limits are mutually exclusive; use one',
        },
        { path: ['descriptors', 1, 'rate_limits'], message: 'rate_limits needs at least one limit' },
        {
          path: ['descriptors', 2, 'rate_limits', 0, 'unlimited'],
          message: 'unlimited is not allowed inside rate_limits (use rate_limit: {unlimited: true})',
        },
        {
          path: ['descriptors', 3, 'rate_limit', 'algorithm'],
          message:
            "invalid algorithm 'leaky' (expected fixed_window or sliding_window; a token bucket is chosen by burst)",
        },
        {
          path: ['descriptors', 4, 'rate_limit', 'algorithm'],
          message:
            "invalid algorithm 'token_bucket' (expected fixed_window or sliding_window; a token bucket is chosen by burst)",
        },
        {
          path: ['descriptors', 5, 'rate_limit', 'algorithm'],
          message: 'burst makes the limit a token bucket; remove algorithm',
        },
        {
          path: ['descriptors', 6, 'rate_limit', 'burst'],
          message: 'burst (the bucket capacity) must be at least 1',
        },
        {
          path: ['descriptors', 6, 'rate_limit', 'requests_per_unit'],
          message: 'a token bucket (burst) needs requests_per_unit of at least 1',
        },
        {
          path: ['descriptors', 7, 'rate_limit', 'burst'],
          message: 'should not specify burst when unlimited',
        },
      ],
    });
  });
});
