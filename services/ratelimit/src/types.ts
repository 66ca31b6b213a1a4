import type { RateLimitUnit, StructValue } from '@portcullis/config';

/** The decision messages of `envoy.service.ratelimit.v3`, as the service core sees them. */
export type Code = 'UNKNOWN' | 'OK' | 'OVER_LIMIT';

export interface Entry {
  key: string;
  value: string;
}

export interface RequestDescriptor {
  entries: readonly Entry[];
  /** A limit the caller asks for instead of the configured one. `unit` is undefined when UNKNOWN. */
  limit?: { requestsPerUnit: number; unit: RateLimitUnit | undefined };
  /** Hits to add for this descriptor; overrides the request's. 0 checks without consuming. */
  hitsAddend?: number;
}

export interface RateLimitRequest {
  domain: string;
  descriptors: readonly RequestDescriptor[];
  /** 0 means 1, as upstream. */
  hitsAddend: number;
}

export interface CurrentLimit {
  name: string | undefined;
  requestsPerUnit: number;
  unit: RateLimitUnit;
}

export interface DescriptorStatus {
  code: Code;
  currentLimit: CurrentLimit | undefined;
  limitRemaining: number;
  /** Whole seconds until the current window ends; undefined when no limit applied. */
  durationUntilResetSec: number | undefined;
}

export interface HeaderValue {
  key: string;
  value: string;
}

export interface RateLimitResponse {
  overallCode: Code;
  statuses: DescriptorStatus[];
  responseHeadersToAdd: HeaderValue[];
  /** `dynamic_metadata`, a `google.protobuf.Struct`; undefined unless `RESPONSE_DYNAMIC_METADATA`. */
  dynamicMetadata: Record<string, StructValue> | undefined;
}
