import { describe, expect, it } from 'vitest';
import { workerCount } from './worker-count.js';

describe('workerCount', () => {
  const redis = { setting: 0, store: 'redis', cpus: 3 } as const;

  it('is the CPUs this process may use with Redis', () => {
    expect(workerCount(redis)).toBe(3);
  });

  it('is 1 with the memory store unless set; a setting wins', () => {
    expect(workerCount({ ...redis, store: 'memory' })).toBe(1);
    expect(workerCount({ ...redis, setting: 5 })).toBe(5);
  });
});
