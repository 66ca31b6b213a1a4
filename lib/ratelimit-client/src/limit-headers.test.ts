import { describe, expect, it } from 'vitest';
import { addLimitHeaders, pickMostRestrictive } from './limit-headers.js';
import type { DescriptorStatus } from './types.js';

const ok = (remaining: number, reset = 60): DescriptorStatus => ({
  code: 'OK',
  requestsPerUnit: 100,
  limitRemaining: remaining,
  durationUntilResetSeconds: reset,
});

describe('pickMostRestrictive', () => {
  it('prefers a status over its limit, then the fewest remaining, then the longest reset', () => {
    const over: DescriptorStatus = { ...ok(0, 5), code: 'OVER_LIMIT' };
    const overLonger: DescriptorStatus = { ...ok(0, 50), code: 'OVER_LIMIT' };
    expect(pickMostRestrictive([ok(0), over, ok(3)])).toBe(over);
    expect(pickMostRestrictive([over, overLonger])).toBe(overLonger);
    expect(pickMostRestrictive([ok(7), ok(3), ok(9)])).toEqual(ok(3));
    expect(pickMostRestrictive([ok(3, 10), ok(3, 20)])).toEqual(ok(3, 20));
  });

  it('ignores statuses without a limit', () => {
    expect(pickMostRestrictive([{ code: 'OK', limitRemaining: 0 }])).toBeUndefined();
  });
});

describe('addLimitHeaders', () => {
  it('appends the three headers, the reset rounded up to whole seconds', () => {
    expect(addLimitHeaders([{ key: 'x-a', value: '1' }], [ok(4, 1.2)])).toEqual([
      { key: 'x-a', value: '1' },
      { key: 'RateLimit-Limit', value: '100' },
      { key: 'RateLimit-Remaining', value: '4' },
      { key: 'RateLimit-Reset', value: '2' },
    ]);
  });

  it('adds nothing when the service sent any of them, in any case, or no status has a limit', () => {
    const sent = [{ key: 'ratelimit-reset', value: '9' }];
    expect(addLimitHeaders(sent, [ok(4)])).toEqual(sent);
    expect(addLimitHeaders([], [{ code: 'OK' }])).toEqual([]);
  });
});
