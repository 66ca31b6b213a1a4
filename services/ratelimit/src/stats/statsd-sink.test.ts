import { describe, expect, it } from 'vitest';
import { packLines } from './statsd-sink.js';

describe('packLines', () => {
  it('fills each datagram up to the limit and never splits a line', () => {
    expect(packLines(['aaaa', 'bbbb', 'cccc', 'dddddddddddd', 'e'], 9)).toEqual([
      'aaaa\nbbbb',
      'cccc',
      'dddddddddddd',
      'e',
    ]);
    expect(packLines([], 9)).toEqual([]);
  });
});
