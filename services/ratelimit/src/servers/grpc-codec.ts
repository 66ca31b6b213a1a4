import type { RateLimitUnit } from '@portcullis/config';
import { toStruct } from '@portcullis/protos';
import type { RateLimitRequest, RateLimitResponse } from '../types.js';

/** `RateLimitRequest` as @grpc/proto-loader hands it over (camelCase, enums as names, unset fields absent). */
export interface GrpcRateLimitRequest {
  domain?: string;
  descriptors?: Array<{
    entries?: Array<{ key?: string; value?: string }>;
    /** A number when the sender's enum has a value ours lacks. */
    limit?: { requestsPerUnit?: number; unit?: string | number };
    hitsAddend?: { value?: number } | null;
  }>;
  hitsAddend?: number;
}

const UNITS: ReadonlySet<string> = new Set(['SECOND', 'MINUTE', 'HOUR', 'DAY', 'WEEK', 'MONTH', 'YEAR']);
/** rls.proto's WEEK; the override's envoy.type.v3.RateLimitUnit has no name for it yet, as upstream reads it. */
const WEEK_NUMBER = 7;

function overrideUnit(unit: string | number | undefined): RateLimitUnit | undefined {
  if (unit === WEEK_NUMBER) return 'WEEK';
  return typeof unit === 'string' && UNITS.has(unit) ? (unit as RateLimitUnit) : undefined;
}

export function fromGrpcRequest(r: GrpcRateLimitRequest): RateLimitRequest {
  return {
    domain: r.domain ?? '',
    hitsAddend: r.hitsAddend ?? 0,
    descriptors: (r.descriptors ?? []).map((d) => ({
      entries: (d.entries ?? []).map((e) => ({ key: e.key ?? '', value: e.value ?? '' })),
      ...(d.limit
        ? {
            limit: {
              requestsPerUnit: d.limit.requestsPerUnit ?? 0,
              unit: overrideUnit(d.limit.unit),
            },
          }
        : {}),
      ...(d.hitsAddend ? { hitsAddend: d.hitsAddend.value ?? 0 } : {}),
    })),
  };
}

/** The response object proto-loader serialises: enums by name, durations as seconds + nanos. */
export function toGrpcResponse(r: RateLimitResponse): object {
  return {
    overallCode: r.overallCode,
    statuses: r.statuses.map((s) => ({
      code: s.code,
      currentLimit: s.currentLimit,
      limitRemaining: s.limitRemaining,
      durationUntilReset:
        s.durationUntilResetSec === undefined ? undefined : { seconds: s.durationUntilResetSec },
    })),
    responseHeadersToAdd: r.responseHeadersToAdd,
    ...(r.dynamicMetadata ? { dynamicMetadata: toStruct(r.dynamicMetadata) } : {}),
  };
}
