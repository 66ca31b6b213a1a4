import { UndecidedResponseError } from './errors.js';
import { addLimitHeaders } from './limit-headers.js';
import type { DecideRequest, Decision, DescriptorStatus, StatusCode } from './types.js';

/**
 * `RateLimitRequest` as @grpc/proto-loader serialises it with the @portcullis/protos loader options:
 * camelCase fields, and the per-descriptor `hits_addend` a `google.protobuf.UInt64Value`, hence `{ value }`.
 */
export interface GrpcRateLimitRequest {
  domain: string;
  descriptors: Array<{
    entries: Array<{ key: string; value: string }>;
    hitsAddend?: { value: number };
  }>;
  hitsAddend?: number;
}

/**
 * `RateLimitResponse` as proto-loader hands it over: enums by name, 64-bit integers as numbers, and every
 * field at its proto3 default absent (so `limitRemaining: 0` arrives as undefined).
 */
export interface GrpcRateLimitResponse {
  overallCode?: string;
  statuses?: Array<{
    code?: string;
    currentLimit?: { requestsPerUnit?: number; unit?: string; name?: string } | null;
    limitRemaining?: number;
    durationUntilReset?: { seconds?: number; nanos?: number } | null;
  }>;
  responseHeadersToAdd?: Array<{ key?: string; value?: string }>;
}

export function toGrpcRequest(r: DecideRequest): GrpcRateLimitRequest {
  return {
    domain: r.domain,
    descriptors: r.descriptors.map((d) => ({
      entries: d.entries.map((e) => ({ key: e.key, value: e.value })),
      ...(d.hitsAddend === undefined ? {} : { hitsAddend: { value: d.hitsAddend } }),
    })),
    ...(r.hitsAddend === undefined ? {} : { hitsAddend: r.hitsAddend }),
  };
}

function toStatusCode(code: string | undefined): StatusCode {
  return code === 'OK' || code === 'OVER_LIMIT' ? code : 'UNKNOWN';
}

function toStatus(s: NonNullable<GrpcRateLimitResponse['statuses']>[number]): DescriptorStatus {
  const out: DescriptorStatus = { code: toStatusCode(s.code) };
  const limit = s.currentLimit ?? undefined;
  // with a limit, an absent count is a zero the wire left out; without one there is nothing to count
  const remaining = limit ? (s.limitRemaining ?? 0) : s.limitRemaining;
  if (remaining !== undefined) out.limitRemaining = remaining;
  if (limit) out.requestsPerUnit = limit.requestsPerUnit ?? 0;
  if (limit?.unit !== undefined) out.unit = limit.unit;
  const reset = s.durationUntilReset ?? undefined;
  if (reset) out.durationUntilResetSeconds = (reset.seconds ?? 0) + (reset.nanos ?? 0) / 1e9;
  return out;
}

/** The service's answer. @throws UndecidedResponseError when the overall code is UNKNOWN. */
export function toDecision(response: GrpcRateLimitResponse, domain: string): Decision {
  const overall = toStatusCode(response.overallCode);
  if (overall === 'UNKNOWN') throw new UndecidedResponseError(domain);
  const statuses = (response.statuses ?? []).map(toStatus);
  const headers = (response.responseHeadersToAdd ?? []).map((h) => ({
    key: h.key ?? '',
    value: h.value ?? '',
  }));
  return {
    allowed: overall === 'OK',
    overLimit: overall === 'OVER_LIMIT',
    failedOpen: false,
    headers: addLimitHeaders(headers, statuses),
    statuses,
  };
}

/** The answer of `failureMode` when the service could not give one. */
export function toFailureDecision(failureMode: 'allow' | 'deny'): Decision {
  return { allowed: failureMode === 'allow', overLimit: false, failedOpen: true, headers: [], statuses: [] };
}
