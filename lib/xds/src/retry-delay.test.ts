import { describe, expect, it } from 'vitest';
import { computeRetryDelayMs } from './retry-delay.js';

describe('computeRetryDelayMs', () => {
  it('never waits less than the interval, so a reset stream cannot spin', () => {
    expect(computeRetryDelayMs(3000, () => 0)).toBe(3000);
  });

  it('adds up to half an interval of jitter', () => {
    expect(computeRetryDelayMs(3000, () => 0.5)).toBe(3750);
    expect(computeRetryDelayMs(3000, () => 0.999999)).toBe(4500);
  });
});
