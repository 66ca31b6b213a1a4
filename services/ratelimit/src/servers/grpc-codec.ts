import type { RateLimitUnit } from '@portcullis/config';
import { toStruct } from '@portcullis/protos';
import type { RateLimitRequest, RateLimitResponse } from '../types.js';

/** `RateLimitRequest` as @grpc/proto-loader hands it over (camelCase, enums as names, unset fields absent). */
export interface GrpcRateLimitRequest {
  domain?: string;
  descriptors?: Array<{
    entries?: Array<{ key?: string; value?: string }>;
    limit?: { requestsPerUnit?: number; unit?: string };
    hitsAddend?: { value?: number } | null;
  }>;
  hitsAddend?: number;
}

const UNITS: ReadonlySet<string> = new Set(['SECOND', 'MINUTE', 'HOUR', 'DAY', 'WEEK', 'MONTH', 'YEAR']);

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
              unit: UNITS.has(d.limit.unit ?? '') ? (d.limit.unit as RateLimitUnit) : undefined,
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
