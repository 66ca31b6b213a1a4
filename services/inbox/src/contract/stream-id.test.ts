import { describe, expect, it } from 'vitest';
import { compareStreamIds, isStreamId, parseStreamId } from './stream-id.js';

describe('stream ids', () => {
  it('accepts <ms>-<seq> only', () => {
    expect(['1-0', '1700000000000-12'].map(isStreamId)).toEqual([true, true]);
    expect(['1', '1-', '-1', '1-0-0', 'a-b', '$', '+'].map(isStreamId)).toEqual(Array(7).fill(false));
  });

  it('orders by time, then sequence, numerically', () => {
    expect(compareStreamIds('9-0', '10-0')).toBeLessThan(0);
    expect(compareStreamIds('10-10', '10-9')).toBeGreaterThan(0);
    expect(compareStreamIds('10-1', '10-1')).toBe(0);
    expect(parseStreamId('junk')).toEqual([0, 0]);
  });
});
