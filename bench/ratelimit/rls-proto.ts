import type { GrpcObject, ServiceClientConstructor } from '@grpc/grpc-js';
import { PROTO_FILES, loadGrpcObject } from '@portcullis/protos';

/** `envoy.service.ratelimit.v3.RateLimitService`, loaded with the same protos and options as the service. */
export function loadRateLimitService(): ServiceClientConstructor {
  const root = loadGrpcObject([PROTO_FILES.rateLimitService]);
  const pkg = ((root.envoy as GrpcObject).service as GrpcObject).ratelimit as GrpcObject;
  return (pkg.v3 as GrpcObject).RateLimitService as ServiceClientConstructor;
}

/** The rule every decision matches: key-only, so each `client` value has its own Redis counter. */
export const BENCH_RULES_YAML = `domain: bench
descriptors:
  - key: client
    rate_limit:
      unit: second
      requests_per_unit: 1000000000
`;

/** Distinct `client` values the load cycles through. */
export const CLIENT_COUNT = 1000;

/** The `RateLimitRequest` of call `i`, in the proto-loader object form (also its proto3 JSON form). */
export function buildRequest(i: number): object {
  return { domain: 'bench', descriptors: [{ entries: [{ key: 'client', value: `c${i % CLIENT_COUNT}` }] }] };
}

/** What the ceiling answers: the shape of our answer under `BENCH_RULES_YAML`, one OK status. */
export const CEILING_RESPONSE = {
  overallCode: 'OK',
  statuses: [
    {
      code: 'OK',
      currentLimit: { requestsPerUnit: 1_000_000_000, unit: 'SECOND' },
      limitRemaining: 999_999_999,
      durationUntilReset: { seconds: 1 },
    },
  ],
} as const;
