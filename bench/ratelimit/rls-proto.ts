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

/** A `RateLimitRequest` in the proto-loader object form (also its proto3 JSON form). */
export interface RateLimitRequest {
  domain: string;
  descriptors: Array<{ entries: Array<{ key: string; value: string }> }>;
}

/** What a load sends (h2load and wrk repeat one body) and the code it expects back, overall and for each descriptor. */
export interface Workload {
  request: RateLimitRequest;
  expectedCode: 'OK' | 'OVER_LIMIT';
}

/** One descriptor `key=value` in `domain`. */
const requestFor = (domain: string, key: string, value: string): RateLimitRequest => ({
  domain,
  descriptors: [{ entries: [{ key, value }] }],
});

/**
 * `descriptors` descriptors `client=c0`, `client=c1`, …: each matches the `client` rule of
 * `BENCH_RULES_YAML` and has its own counter, far below its limit.
 */
export function clientWorkload(descriptors: number): Workload {
  return {
    request: {
      domain: 'bench',
      descriptors: Array.from({ length: descriptors }, (_, i) => ({
        entries: [{ key: 'client', value: `c${i}` }],
      })),
    },
    expectedCode: 'OK',
  };
}

/** One `client` key, far below its limit. */
export const CLIENT_WORKLOAD: Workload = clientWorkload(1);

/** `CLIENT_WORKLOAD` on the rule `key` (`sliding`, `bucket`, `multi`) of `ALGORITHM_RULES_YAML`. */
export function algorithmWorkload(key: string): Workload {
  return { request: requestFor('bench-algorithms', key, 'c0'), expectedCode: 'OK' };
}

/** One key, always over its limit. */
export const HOT_KEY_WORKLOAD: Workload = {
  request: requestFor('bench', 'hot', 'h'),
  expectedCode: 'OVER_LIMIT',
};

/** The gRPC message of `request`: the compressed flag (0), its length (4 bytes, big-endian), the protobuf. */
export function encodeGrpcFrame(request: RateLimitRequest): Buffer {
  const message = loadRateLimitService().service.ShouldRateLimit?.requestSerialize(request);
  if (!message) throw new Error('RateLimitService has no ShouldRateLimit method');
  const header = Buffer.alloc(5);
  header.writeUInt32BE(message.length, 1);
  return Buffer.concat([header, message]);
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
