import { describe, expect, it } from 'vitest';
import { workerCount } from './worker-count.js';

describe('workerCount', () => {
  const redis = { setting: 0, backendType: 'redis', cpus: 3 } as const;

  it('is the CPUs this process may use with a shared backend', () => {
    expect(workerCount(redis)).toBe(3);
  });

  it('is 1 with the memory backend unless set; a setting wins', () => {
    expect(workerCount({ ...redis, backendType: 'memory' })).toBe(1);
    expect(workerCount({ ...redis, backendType: 'memory', setting: 2 })).toBe(2);
    expect(workerCount({ ...redis, setting: 5 })).toBe(5);
  });
});
