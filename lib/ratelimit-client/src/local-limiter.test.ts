import { describe, expect, it } from 'vitest';
import { RateLimitClientOptionsError } from './errors.js';
import { createLocalLimiter } from './local-limiter.js';
import type { DecideRequest, LocalLimitRule } from './types.js';

const MINUTE_MS = 60_000;
const START = Date.UTC(2026, 0, 1, 12, 0, 0);

const SIGN_IN: LocalLimitRule[] = [
  {
    domain: 'auth',
    entries: [{ key: 'action', value: 'sign_in' }, { key: 'remote_address' }],
    requestsPerUnit: 3,
    unit: 'minute',
  },
  {
    domain: 'auth',
    entries: [{ key: 'action', value: 'sign_in' }, { key: 'username' }],
    requestsPerUnit: 2,
    unit: 'minute',
  },
];

const signIn = (ip: string, username: string): DecideRequest => ({
  domain: 'auth',
  descriptors: [
    {
      entries: [
        { key: 'action', value: 'sign_in' },
        { key: 'remote_address', value: ip },
      ],
    },
    {
      entries: [
        { key: 'action', value: 'sign_in' },
        { key: 'username', value: username },
      ],
    },
  ],
});

function clock(startMs = START) {
  let t = startMs;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('createLocalLimiter', () => {
  it('refuses past any descriptor’s limit, with the RateLimit headers of the most restrictive', () => {
    const c = clock(START + 15_000);
    const limiter = createLocalLimiter({ rules: SIGN_IN, maxKeys: 100, now: c.now });
    expect(limiter.decide(signIn('10.0.0.1', 'alice')).allowed).toBe(true);
    const second = limiter.decide(signIn('10.0.0.1', 'alice'));
    expect(second).toMatchObject({ allowed: true, local: true, failedOpen: false });
    expect(second.statuses[1]).toMatchObject({ code: 'OK', limitRemaining: 0, requestsPerUnit: 2 });
    const third = limiter.decide(signIn('10.0.0.1', 'alice'));
    expect(third).toMatchObject({ allowed: false, overLimit: true, failedOpen: false });
    expect(third.statuses.map((s) => s.code)).toEqual(['OK', 'OVER_LIMIT']);
    expect(Object.fromEntries(third.headers.map((h) => [h.key, h.value]))).toEqual({
      'RateLimit-Limit': '2',
      'RateLimit-Remaining': '0',
      'RateLimit-Reset': '45',
    });
    // another name from the address: the address's third and last
    expect(limiter.decide(signIn('10.0.0.1', 'bob')).allowed).toBe(true);
    expect(limiter.decide(signIn('10.0.0.1', 'carol')).allowed).toBe(false);
  });

  it('counts a refused request against none of its descriptors', () => {
    const limiter = createLocalLimiter({ rules: SIGN_IN, maxKeys: 100, now: clock().now });
    for (let i = 0; i < 3; i++) limiter.decide(signIn('10.0.0.1', `user${i}`));
    // the address is spent; these names must not be charged, nor get counters
    expect(limiter.decide(signIn('10.0.0.1', 'dave')).allowed).toBe(false);
    expect(limiter.decide(signIn('10.0.0.1', 'dave')).allowed).toBe(false);
    expect(limiter.stats().keys).toBe(4);
    expect(limiter.decide(signIn('10.0.0.2', 'dave')).statuses[1]).toMatchObject({ limitRemaining: 1 });
  });

  it('starts a new window at the next epoch-aligned unit', () => {
    const c = clock(START + 59_000);
    const limiter = createLocalLimiter({ rules: SIGN_IN, maxKeys: 100, now: c.now });
    limiter.decide(signIn('10.0.0.1', 'alice'));
    limiter.decide(signIn('10.0.0.1', 'alice'));
    expect(limiter.decide(signIn('10.0.0.1', 'alice')).allowed).toBe(false);
    c.advance(1_000);
    expect(limiter.decide(signIn('10.0.0.1', 'alice')).allowed).toBe(true);
  });

  it('leaves descriptors no rule matches, and rules of 0, unlimited', () => {
    const limiter = createLocalLimiter({
      rules: [{ ...SIGN_IN[0]!, requestsPerUnit: 0 }],
      maxKeys: 10,
      now: clock().now,
    });
    for (let i = 0; i < 50; i++) {
      const d = limiter.decide(signIn('10.0.0.1', 'alice'));
      expect(d).toMatchObject({ allowed: true, headers: [] });
      expect(d.statuses).toEqual([{ code: 'OK' }, { code: 'OK' }]);
    }
    expect(limiter.stats().keys).toBe(0);
  });

  it('holds at most maxKeys counters: expired ones go first, then the oldest live one, counted', () => {
    const c = clock();
    const limiter = createLocalLimiter({ rules: [SIGN_IN[1]!], maxKeys: 3, now: c.now });
    const only = (name: string): DecideRequest => ({
      domain: 'auth',
      descriptors: [
        {
          entries: [
            { key: 'action', value: 'sign_in' },
            { key: 'username', value: name },
          ],
        },
      ],
    });
    for (const name of ['a', 'b', 'c']) limiter.decide(only(name));
    c.advance(MINUTE_MS);
    limiter.decide(only('d')); // 'a' expired: dropped, not an eviction
    expect(limiter.stats()).toEqual({ keys: 3, evictions: 0 });
    limiter.decide(only('d'));
    expect(limiter.decide(only('d')).allowed).toBe(false);
    limiter.decide(only('e')); // 'b' expired too
    limiter.decide(only('f')); // 'c'
    limiter.decide(only('g')); // 'd' is live: evicted early
    expect(limiter.stats()).toEqual({ keys: 3, evictions: 1 });
    expect(limiter.decide(only('d')).allowed).toBe(true);
  });

  it('refuses unusable options, listing every problem', () => {
    expect(() =>
      createLocalLimiter({
        rules: [{ domain: 'd', entries: [], requestsPerUnit: -1, unit: 'fortnight' as 'day' }],
        maxKeys: 0,
      }),
    ).toThrow(RateLimitClientOptionsError);
    try {
      createLocalLimiter({
        rules: [{ domain: 'd', entries: [], requestsPerUnit: -1, unit: 'fortnight' as 'day' }],
        maxKeys: 0,
      });
    } catch (err: unknown) {
      expect((err as RateLimitClientOptionsError).problems).toEqual([
        'maxKeys: expected an integer ≥ 1, got 0',
        'rules[0].requestsPerUnit: expected an integer ≥ 0, got -1',
        'rules[0].unit: unknown "fortnight"',
        'rules[0].entries: at least one entry',
      ]);
    }
  });
});
