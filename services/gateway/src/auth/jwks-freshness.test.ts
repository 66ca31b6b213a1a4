import { describe, expect, it } from 'vitest';
import { jwksFreshnessMs } from './jwks-freshness.js';

const bounds = { minMs: 60_000, maxMs: 3_600_000 };
const fresh = (cacheControl: string | null, age: string | null = null) =>
  jwksFreshnessMs({ cacheControl, age }, bounds);

describe('JWKS freshness', () => {
  it('is max-age less Age, within the bounds', () => {
    expect(fresh('public, max-age=600')).toBe(600_000);
    expect(fresh('Max-Age=600, must-revalidate', '100')).toBe(500_000);
    expect(fresh('max-age=10')).toBe(60_000);
    expect(fresh('max-age=600', '590')).toBe(60_000);
    expect(fresh('max-age=86400')).toBe(3_600_000);
    for (const unusableAge of ['x100', '100x', '']) expect(fresh('max-age=600', unusableAge)).toBe(600_000);
  });

  it('is the minimum when the provider says not to cache, or says nothing usable', () => {
    for (const header of [
      null,
      '',
      'no-store',
      'max-age=600, no-cache',
      'no-store, max-age=600',
      'max-age=600x',
      'max-age=x600',
      'max-age=ten',
      'max-age=-5',
      'private',
    ]) {
      expect([header, fresh(header)]).toEqual([header, 60_000]);
    }
  });
});
