import { describe, expect, it } from 'vitest';
import { cpusOfQuota, workerCount } from './worker-count.js';

describe('cpusOfQuota', () => {
  it('rounds the quota over the period up, at least 1; no limit for max or a text that is no quota', () => {
    expect(cpusOfQuota('200000 100000\n')).toBe(2);
    expect(cpusOfQuota('150000 100000')).toBe(2);
    expect(cpusOfQuota('50000 100000')).toBe(1);
    expect(cpusOfQuota('max 100000\n')).toBeUndefined();
    expect(cpusOfQuota('')).toBeUndefined();
    expect(cpusOfQuota('0 100000')).toBeUndefined();
  });
});

describe('workerCount', () => {
  const redis = { setting: 0, backendType: 'redis', cpus: 8 } as const;

  it('is the CPUs, capped by the cgroup quota (a Kubernetes CPU limit)', () => {
    expect(workerCount({ ...redis, cpuMax: undefined })).toBe(8);
    expect(workerCount({ ...redis, cpuMax: 'max 100000' })).toBe(8);
    expect(workerCount({ ...redis, cpuMax: '250000 100000' })).toBe(3);
    expect(workerCount({ ...redis, cpuMax: '1600000 100000' })).toBe(8);
    expect(workerCount({ ...redis, cpuMax: '10000 100000' })).toBe(1);
  });

  it('is 1 with the memory backend unless set; a setting wins', () => {
    expect(workerCount({ ...redis, backendType: 'memory', cpuMax: undefined })).toBe(1);
    expect(workerCount({ ...redis, setting: 3, cpuMax: '100000 100000' })).toBe(3);
  });
});
