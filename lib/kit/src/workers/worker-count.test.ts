import { describe, expect, it } from 'vitest';
import { workerCount } from './worker-count.js';

describe('workerCount', () => {
  const shared = { setting: 0, stateInProcess: false, cpus: 3 } as const;

  it('is the CPUs this process may use when the state is shared (Redis)', () => {
    expect(workerCount(shared)).toBe(3);
  });

  it('is 1 when the state is in the process unless set; a setting wins', () => {
    expect(workerCount({ ...shared, stateInProcess: true })).toBe(1);
    expect(workerCount({ ...shared, stateInProcess: true, setting: 2 })).toBe(2);
    expect(workerCount({ ...shared, setting: 5 })).toBe(5);
  });
});
