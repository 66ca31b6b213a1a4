import { describe, expect, it } from 'vitest';
import { formatAge, splitDuration, toSeconds } from './duration.js';

describe('retention durations in human units', () => {
  it('splits seconds into the largest unit that divides them evenly', () => {
    expect(splitDuration(604_800)).toEqual({ amount: 7, unit: 'days' });
    expect(splitDuration(7200)).toEqual({ amount: 2, unit: 'hours' });
    expect(splitDuration(5400)).toEqual({ amount: 90, unit: 'minutes' });
    expect(splitDuration(90)).toEqual({ amount: 90, unit: 'seconds' });
  });

  it('converts an amount and its unit back to the seconds the API takes', () => {
    expect(toSeconds('7', 'days')).toBe(604_800);
    expect(toSeconds('1.5', 'hours')).toBe(5400);
    expect(toSeconds('30', 'minutes')).toBe(1800);
    expect(toSeconds('', 'days')).toBeNaN();
    expect(toSeconds('ten', 'days')).toBeNaN();
  });

  it('says an age in words', () => {
    expect(formatAge(604_800)).toBe('7 days');
    expect(formatAge(86_400)).toBe('1 day');
    expect(formatAge(3600)).toBe('1 hour');
    expect(formatAge(5400)).toBe('90 min');
    expect(formatAge(61)).toBe('61 s');
  });
});
