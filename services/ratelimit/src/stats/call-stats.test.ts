import { describe, expect, it } from 'vitest';
import { CallStats, MAX_TIMING_SAMPLES } from './call-stats.js';

describe('CallStats', () => {
  it('counts every call and keeps all timings of a quiet interval', () => {
    const call = new CallStats('M');
    call.record(1.5);
    call.record(2);
    expect(call.total_requests.value).toBe(2);
    expect(call.drain()).toEqual({ samples: [1.5, 2], count: 2 });
    expect(call.drain()).toEqual({ samples: [], count: 0 });
  });

  it('keeps a bounded uniform sample of a busy interval, with the count it stands for', () => {
    let i = 0;
    const call = new CallStats('M', () => (i++ % 100) / 100);
    const n = MAX_TIMING_SAMPLES * 5;
    for (let ms = 0; ms < n; ms++) call.record(ms);
    const { samples, count } = call.drain();
    expect(count).toBe(n);
    expect(call.total_requests.value).toBe(n);
    expect(samples).toHaveLength(MAX_TIMING_SAMPLES);
    // later calls replaced earlier ones: the sample is not just the first thousand
    expect(samples.filter((ms) => ms >= MAX_TIMING_SAMPLES).length).toBeGreaterThan(MAX_TIMING_SAMPLES / 2);
  });
});
