import { describe, expect, it } from 'vitest';
import { addCounts, combineRuns, median, spreadOf, type RunFigures } from './repeat.js';

const run = (perSecond: number, p99Ms: number, more: Partial<RunFigures> = {}): RunFigures => ({
  summary: { count: 100, perSecond, p50Ms: p99Ms / 2, p99Ms },
  cpu: { client: 0.1, server: 1, machine: 1.5 },
  serverRssBytes: 50 * 2 ** 20,
  errorsByLabel: new Map(),
  ...more,
});

describe('median', () => {
  it('takes the middle value of an odd count, whatever the order', () => {
    expect(median([3, 1, 2])).toBe(2);
  });

  it('takes the mean of the middle two of an even count', () => {
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });

  it('is NaN for no value', () => {
    expect(median([])).toBeNaN();
  });
});

describe('spreadOf', () => {
  it('is the range over the median', () => {
    expect(spreadOf([90, 100, 110])).toBeCloseTo(0.2);
  });

  it('is 0 for equal values and NaN when the median is 0', () => {
    expect(spreadOf([5, 5])).toBe(0);
    expect(spreadOf([0, 0, 1])).toBeNaN();
  });
});

describe('addCounts', () => {
  it('adds the counts of each label', () => {
    expect(
      addCounts([
        new Map([['a', 1]]),
        new Map([
          ['a', 2],
          ['b', 1],
        ]),
      ]),
    ).toEqual(
      new Map([
        ['a', 3],
        ['b', 1],
      ]),
    );
  });
});

describe('combineRuns', () => {
  it('takes the median of each figure and the total of counts and errors', () => {
    const combined = combineRuns([
      run(1000, 9, { errorsByLabel: new Map([['HTTP 5xx', 2]]) }),
      run(1200, 5, { serverRssBytes: 70 * 2 ** 20 }),
      run(1100, 7, {
        cpu: { client: 0.3, server: 0.8, machine: 1.9 },
        errorsByLabel: new Map([['HTTP 5xx', 1]]),
      }),
    ]);
    expect(combined.summary).toEqual({ count: 300, perSecond: 1100, p50Ms: 3.5, p99Ms: 7 });
    expect(combined.cpu).toEqual({ client: 0.1, server: 1, machine: 1.5 });
    expect(combined.serverRssBytes).toBe(50 * 2 ** 20);
    expect(combined.errorsByLabel).toEqual(new Map([['HTTP 5xx', 3]]));
    expect(combined.spread?.perSecond).toBeCloseTo(200 / 1100);
    expect(combined.spread?.p99Ms).toBeCloseTo(4 / 7);
  });

  it('gives no spread for one run, its figures unchanged', () => {
    const one = run(1000, 9);
    expect(combineRuns([one])).toEqual({ ...one, spread: undefined });
  });

  it('leaves a figure unknown when one run lacks it', () => {
    const combined = combineRuns([run(1, 1), run(1, 1, { serverRssBytes: undefined })]);
    expect(combined.serverRssBytes).toBeUndefined();
  });

  it('refuses no run', () => {
    expect(() => combineRuns([])).toThrow('combineRuns: no run to combine');
  });
});
