import type { GrpcObject, ServiceClientConstructor } from '@grpc/grpc-js';
import { PROTO_FILES, loadGrpcObject } from '@portcullis/protos';

/** `envoy.service.ratelimit.v3.RateLimitService`, loaded with the same protos and options as the service. */
export function loadRateLimitService(): ServiceClientConstructor {
  const root = loadGrpcObject([PROTO_FILES.rateLimitService]);
  const pkg = ((root.envoy as GrpcObject).service as GrpcObject).ratelimit as GrpcObject;
  return (pkg.v3 as GrpcObject).RateLimitService as ServiceClientConstructor;
}

/**
 * The rule every decision matches: key-only, so each `client` value has its own counter; and `hot`, which
 * blocks every request, for the local over-limit cache scenario.
 */
export const BENCH_RULES_YAML = `domain: bench
descriptors:
  - key: client
    rate_limit:
      unit: second
      requests_per_unit: 1000000000
  - key: hot
    rate_limit:
      unit: hour
      requests_per_unit: 0
`;

/**
 * `client`'s far-off limit counted as a sliding window, a token bucket and two limits (`rate_limits`), in a
 * domain of its own: memcached refuses token buckets, so its instance does not load this file.
 */
export const ALGORITHM_RULES_YAML = `domain: bench-algorithms
descriptors:
  - key: sliding
    rate_limit: {unit: second, requests_per_unit: 1000000000, algorithm: sliding_window}
  - key: bucket
    rate_limit: {unit: second, requests_per_unit: 1000000, burst: 1000000}
  - key: multi
    rate_limits:
      - {unit: second, requests_per_unit: 1000000000}
      - {unit: hour, requests_per_unit: 1000000000}
`;

/** Distinct `client` values the load cycles through. */
export const CLIENT_COUNT = 1000;

/** The `RateLimitRequest` of call `i`, in the proto-loader object form (also its proto3 JSON form). */
export function buildRequest(i: number, rule = { domain: 'bench', key: 'client' }): object {
  return {
    domain: rule.domain,
    descriptors: [{ entries: [{ key: rule.key, value: `c${i % CLIENT_COUNT}` }] }],
  };
}

/** What a load sends and the one code it expects back, overall and for its one descriptor. */
export interface Workload {
  requests: readonly object[];
  expectedCode: 'OK' | 'OVER_LIMIT';
}

/** `CLIENT_COUNT` distinct keys, each far below its limit. */
export const SPREAD_WORKLOAD: Workload = {
  requests: Array.from({ length: CLIENT_COUNT }, (_, i) => buildRequest(i)),
  expectedCode: 'OK',
};

/** `SPREAD_WORKLOAD` on the rule `key` (`sliding`, `bucket`, `multi`) of `ALGORITHM_RULES_YAML`. */
export function algorithmWorkload(key: string): Workload {
  const rule = { domain: 'bench-algorithms', key };
  return {
    requests: Array.from({ length: CLIENT_COUNT }, (_, i) => buildRequest(i, rule)),
    expectedCode: 'OK',
  };
}

/** One key, always over its limit. */
export const HOT_KEY_WORKLOAD: Workload = {
  requests: [{ domain: 'bench', descriptors: [{ entries: [{ key: 'hot', value: 'h' }] }] }],
  expectedCode: 'OVER_LIMIT',
};

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
