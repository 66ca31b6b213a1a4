import { status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import type { Logger } from '@portcullis/kit';
import { UndecidedResponseError } from './errors.js';
import type { FailureReason, RateLimitClientStats } from './types.js';

/** Counts calls and failures; logs when calls start failing, fail differently, or succeed again. */
export interface FailureTracker {
  recordCall(): void;
  recordSuccess(): void;
  recordFailure(err: unknown): void;
  stats(): RateLimitClientStats;
}

export function isServiceError(err: unknown): err is ServiceError {
  return err instanceof Error && typeof (err as Partial<ServiceError>).code === 'number' && 'metadata' in err;
}

/** The gRPC status name of a failed call, `UNDECIDED` for an UNKNOWN answer, else `UNKNOWN`. */
export function toFailureReason(err: unknown): FailureReason {
  if (err instanceof UndecidedResponseError) return 'UNDECIDED';
  if (!isServiceError(err)) return 'UNKNOWN';
  // a code outside the enum (from a misbehaving peer) has no name
  return (GrpcStatus as Record<number, string | undefined>)[err.code] ?? 'UNKNOWN';
}

/** `log` gets one line per change of state (not per call), so a dead service does not flood it. */
export function createFailureTracker(failureMode: 'allow' | 'deny', log: Logger): FailureTracker {
  const counts = { calls: 0, failures: 0, failedOpen: 0, failedClosed: 0 };
  const byReason = new Map<FailureReason, number>();
  let failingWith: FailureReason | undefined;
  let failedSinceSuccess = 0;

  return {
    recordCall() {
      counts.calls++;
    },
    recordSuccess() {
      if (failingWith === undefined) return;
      log.info({ reason: failingWith, failedCalls: failedSinceSuccess }, 'ratelimit calls succeed again');
      failingWith = undefined;
      failedSinceSuccess = 0;
    },
    recordFailure(err) {
      const reason = toFailureReason(err);
      counts.failures++;
      if (failureMode === 'allow') counts.failedOpen++;
      else counts.failedClosed++;
      byReason.set(reason, (byReason.get(reason) ?? 0) + 1);
      failedSinceSuccess++;
      if (reason === failingWith) return;
      failingWith = reason;
      const fields = isServiceError(err)
        ? { grpcCode: err.code, reason, details: err.details }
        : { reason, err };
      log.warn({ ...fields, failureMode }, 'ratelimit calls failing, answering by failure mode');
    },
    stats() {
      return { ...counts, failuresByReason: Object.fromEntries(byReason) };
    },
  };
}
