import { describe, expect, it } from 'vitest';
import { takeFromBucket } from './bucket-take.js';
import type { BucketTake } from './types.js';

const NOW_US = 1_795_348_830_000_000;
const take = (costUs: number): BucketTake => ({
  kind: 'take',
  key: 'b',
  unitSeconds: 1,
  nowUs: NOW_US,
  costUs,
  capacityUs: 3000,
});

describe('takeFromBucket', () => {
  it('admits from now on an absent or refilled bucket, storing the new TAT', () => {
    expect(takeFromBucket(0, take(1000))).toEqual({ answer: NOW_US + 1000, store: NOW_US + 1000 });
    expect(takeFromBucket(NOW_US - 5000, take(3000))).toEqual({
      answer: NOW_US + 3000,
      store: NOW_US + 3000,
    });
  });

  it('refuses past the capacity, answering the TAT negated and storing nothing', () => {
    expect(takeFromBucket(NOW_US + 2500, take(1000))).toEqual({ answer: -(NOW_US + 2500), store: undefined });
  });

  it('a take that costs nothing (a peek) answers the TAT and stores nothing', () => {
    expect(takeFromBucket(0, take(0))).toEqual({ answer: NOW_US, store: undefined });
    expect(takeFromBucket(NOW_US + 2000, take(0))).toEqual({ answer: NOW_US + 2000, store: undefined });
  });
});
