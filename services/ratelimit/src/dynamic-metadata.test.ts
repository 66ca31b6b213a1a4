import { describe, expect, it } from 'vitest';
import { buildDynamicMetadata } from './dynamic-metadata.js';
import type { DescriptorStatus } from './types.js';

const status = (code: 'OK' | 'OVER_LIMIT'): DescriptorStatus => ({
  code,
  currentLimit: undefined,
  limitRemaining: 0,
  durationUntilResetSec: undefined,
});

describe('buildDynamicMetadata', () => {
  it('merges the metadata of limits not over, first writer winning, nested maps merged, without touching the rules', () => {
    const first = { svc: 'a', deep: { x: 1, list: [1] } };
    const over = { svc: 'over', only: 'over' };
    const third = { svc: 'c', deep: { x: 2, y: 3 }, extra: true };
    const out = buildDynamicMetadata(
      {
        domain: 'd',
        hitsAddend: 0,
        descriptors: [{ entries: [{ key: 'k', value: 'v' }] }, { entries: [] }, { entries: [] }],
      },
      [status('OK'), status('OVER_LIMIT'), status('OK')],
      [first, over, third],
    );
    expect(out).toEqual({
      domain: 'd',
      descriptors: [{ entries: ['k=v'] }, { entries: [] }, { entries: [] }],
      metadata: { svc: 'a', deep: { x: 1, y: 3, list: [1] }, extra: true },
    });
    expect(first).toEqual({ svc: 'a', deep: { x: 1, list: [1] } });
  });

  it('leaves metadata out when nothing contributes, and the request hitsAddend when 0', () => {
    const out = buildDynamicMetadata(
      { domain: 'd', hitsAddend: 0, descriptors: [{ entries: [] }] },
      [status('OK')],
      [undefined],
    );
    expect(out).toEqual({ domain: 'd', descriptors: [{ entries: [] }] });
  });
});
