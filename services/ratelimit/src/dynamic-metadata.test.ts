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
      { metadataByDescriptor: [first, over, third], quotaByDescriptor: [], quotaModeEnabled: false },
    );
    expect(out).toEqual({
      domain: 'd',
      descriptors: [{ entries: ['k=v'] }, { entries: [] }, { entries: [] }],
      quotaModeEnabled: false,
      metadata: { svc: 'a', deep: { x: 1, y: 3, list: [1] }, extra: true },
    });
    expect(first).toEqual({ svc: 'a', deep: { x: 1, list: [1] } });
  });

  it('leaves metadata out when nothing contributes, and the request hitsAddend when 0', () => {
    const out = buildDynamicMetadata(
      { domain: 'd', hitsAddend: 0, descriptors: [{ entries: [] }] },
      [status('OK')],
      { metadataByDescriptor: [undefined], quotaByDescriptor: [false], quotaModeEnabled: false },
    );
    expect(out).toEqual({ domain: 'd', descriptors: [{ entries: [] }], quotaModeEnabled: false });
  });

  it('lists the quota descriptors over their limit, and says whether a rule is in quota mode', () => {
    const out = buildDynamicMetadata(
      { domain: 'd', hitsAddend: 0, descriptors: [{ entries: [] }, { entries: [] }, { entries: [] }] },
      [status('OVER_LIMIT'), status('OVER_LIMIT'), status('OVER_LIMIT')],
      { metadataByDescriptor: [], quotaByDescriptor: [true, false, true], quotaModeEnabled: true },
    );
    expect(out).toMatchObject({ quotaModeViolations: [0, 2], quotaModeEnabled: true });
  });
});
