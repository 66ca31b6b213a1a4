import { describe, expect, it } from 'vitest';
import { readRateLimitBenchSettings } from './settings.js';

describe('readRateLimitBenchSettings', () => {
  it('measures each scenario once, all of them, by default', () => {
    expect(readRateLimitBenchSettings({})).toEqual({ repeat: 1, only: undefined });
  });

  it('reads BENCH_REPEAT and BENCH_ONLY, an empty BENCH_ONLY picking all', () => {
    expect(readRateLimitBenchSettings({ BENCH_REPEAT: '5', BENCH_ONLY: '2 workers' })).toEqual({
      repeat: 5,
      only: '2 workers',
    });
    expect(readRateLimitBenchSettings({ BENCH_ONLY: '' }).only).toBeUndefined();
  });

  it.each(['0', '21', '1.5', 'three'])('refuses BENCH_REPEAT=%s, naming it', (raw) => {
    expect(() => readRateLimitBenchSettings({ BENCH_REPEAT: raw })).toThrow(
      `BENCH_REPEAT="${raw}": expected an integer from 1 to 20`,
    );
  });
});
