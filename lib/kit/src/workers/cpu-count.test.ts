import { describe, expect, it } from 'vitest';
import { cpusAllowed, cpusOfQuota } from './cpu-count.js';

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

describe('cpusAllowed', () => {
  it('is the CPUs, capped by the cgroup quota (a Kubernetes CPU limit)', () => {
    expect(cpusAllowed({ cpus: 8, cpuMax: undefined })).toBe(8);
    expect(cpusAllowed({ cpus: 8, cpuMax: 'max 100000' })).toBe(8);
    expect(cpusAllowed({ cpus: 8, cpuMax: '250000 100000' })).toBe(3);
    expect(cpusAllowed({ cpus: 8, cpuMax: '1600000 100000' })).toBe(8);
    expect(cpusAllowed({ cpus: 8, cpuMax: '10000 100000' })).toBe(1);
  });
});
