import { describe, expect, it } from 'vitest';
import { UndecidedResponseError } from './errors.js';
import { toDecision, toGrpcRequest } from './grpc-codec.js';

describe('toGrpcRequest', () => {
  it('wraps a per-descriptor hitsAddend in a UInt64Value and leaves unset ones out', () => {
    expect(
      toGrpcRequest({
        domain: 'd',
        descriptors: [{ entries: [{ key: 'k', value: 'v' }], hitsAddend: 3 }, { entries: [] }],
      }),
    ).toEqual({
      domain: 'd',
      descriptors: [{ entries: [{ key: 'k', value: 'v' }], hitsAddend: { value: 3 } }, { entries: [] }],
    });
  });
});

describe('toDecision', () => {
  it('reads proto3 defaults left off the wire as zeros where a limit is present', () => {
    const d = toDecision(
      {
        overallCode: 'OVER_LIMIT',
        statuses: [
          { code: 'OVER_LIMIT', currentLimit: { unit: 'SECOND' }, durationUntilReset: { nanos: 5e8 } },
        ],
      },
      'd',
    );
    expect(d.statuses).toEqual([
      {
        code: 'OVER_LIMIT',
        limitRemaining: 0,
        requestsPerUnit: 0,
        unit: 'SECOND',
        durationUntilResetSeconds: 0.5,
      },
    ]);
    expect(d).toMatchObject({ allowed: false, overLimit: true, failedOpen: false });
  });

  it('maps a status code it does not know to UNKNOWN', () => {
    expect(toDecision({ overallCode: 'OK', statuses: [{}] }, 'd').statuses).toEqual([{ code: 'UNKNOWN' }]);
  });

  it('throws UndecidedResponseError for an overall code UNKNOWN (absent on the wire)', () => {
    expect(() => toDecision({}, 'web')).toThrow(UndecidedResponseError);
  });
});
