import { Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { createLogger } from '@portcullis/kit';
import { describe, expect, it } from 'vitest';
import { UndecidedResponseError } from './errors.js';
import { createFailureTracker, toFailureReason } from './failure-tracker.js';

const grpcError = (code: status): ServiceError =>
  Object.assign(new Error(`${code}`), { code, details: 'd', metadata: new Metadata() });

describe('toFailureReason', () => {
  it('names the gRPC status, UNDECIDED for an UNKNOWN answer, UNKNOWN otherwise', () => {
    expect(toFailureReason(grpcError(status.UNAVAILABLE))).toBe('UNAVAILABLE');
    expect(toFailureReason(new UndecidedResponseError('web'))).toBe('UNDECIDED');
    expect(toFailureReason(new Error('x'))).toBe('UNKNOWN');
  });
});

describe('createFailureTracker', () => {
  it('logs once per change of state and counts every failure by reason', () => {
    const lines: Array<Record<string, unknown>> = [];
    const log = createLogger({
      level: 'debug',
      format: 'json',
      destination: { write: (l) => lines.push(JSON.parse(l) as Record<string, unknown>) },
    });
    const t = createFailureTracker('deny', log);
    for (const code of [status.UNAVAILABLE, status.UNAVAILABLE, status.DEADLINE_EXCEEDED]) {
      t.recordCall();
      t.recordFailure(grpcError(code));
    }
    t.recordCall();
    t.recordSuccess();
    t.recordSuccess();
    expect(lines.map((l) => [l.level, l.reason, l.grpcCode ?? l.failedCalls])).toEqual([
      ['warn', 'UNAVAILABLE', 14],
      ['warn', 'DEADLINE_EXCEEDED', 4],
      ['info', 'DEADLINE_EXCEEDED', 3],
    ]);
    expect(t.stats()).toEqual({
      calls: 4,
      failures: 3,
      failuresByReason: { UNAVAILABLE: 2, DEADLINE_EXCEEDED: 1 },
      failedOpen: 0,
      failedClosed: 3,
    });
  });
});
