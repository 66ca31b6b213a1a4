import type { RateLimitUnit } from '@portcullis/config';
import { toStruct } from '@portcullis/protos';
import type { RateLimitRequest, RateLimitResponse } from '../types.js';
import { MAX_HITS_ADDEND, readUint } from './request-integer.js';

/**
 * `RateLimitRequest` as @grpc/proto-loader hands it over (camelCase, enums as names, unset fields absent,
 * 64-bit integers as strings so that none is rounded before it is checked).
 */
export interface GrpcRateLimitRequest {
  domain?: string;
  descriptors?: Array<{
    entries?: Array<{ key?: string; value?: string }>;
    /** A number when the sender's enum has a value ours lacks. */
    limit?: { requestsPerUnit?: number; unit?: string | number };
    hitsAddend?: { value?: string } | null;
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

/** Throws a `RequestError` naming the field for a `hits_addend` above `MAX_HITS_ADDEND`. */
export function fromGrpcRequest(r: GrpcRateLimitRequest): RateLimitRequest {
  return {
    domain: r.domain ?? '',
    hitsAddend: r.hitsAddend ?? 0,
    descriptors: (r.descriptors ?? []).map((d, i) => ({
      entries: (d.entries ?? []).map((e) => ({ key: e.key ?? '', value: e.value ?? '' })),
      ...(d.limit
        ? {
            limit: {
              requestsPerUnit: d.limit.requestsPerUnit ?? 0,
              unit: overrideUnit(d.limit.unit),
            },
          }
        : {}),
      ...(d.hitsAddend
        ? {
            hitsAddend:
              readUint(d.hitsAddend.value, { path: `descriptors[${i}].hits_addend`, max: MAX_HITS_ADDEND }) ??
              0,
          }
        : {}),
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
