/** The public shapes of the rate-limit client; a leaf module that imports only types. */
import type { Logger } from '@portcullis/kit';
import type { ClientTlsOptions } from '@portcullis/xds';

export interface RateLimitClientOptions {
  /** `host:port`, or `xds:///ratelimit` to balance over the endpoints an xDS server hands out. */
  target: string;
  /**
   * Bootstrap for `xds:///` targets: the xDS server address (`host:port`, insecure) and this node's id.
   * Without it an `xds:///` target reads grpc-js-xds's process-wide `GRPC_XDS_BOOTSTRAP` (a file) or
   * `GRPC_XDS_BOOTSTRAP_CONFIG` (JSON).
   */
  xds?: { serverUri: string; nodeId: string };
  /** TLS to the service (mTLS with a client certificate); plaintext without it. */
  tls?: ClientTlsOptions | undefined;
  /** Deadline of each call, in milliseconds. */
  timeoutMs: number;
  /**
   * Requests made in one event-loop turn for the same domain share one `ShouldRateLimit` call (see the
   * README's "Batching"); `false` sends each alone. On unless `false`.
   */
  batch?: boolean;
  /** What `decide()` answers when the service cannot be reached, errors or cannot decide. */
  failureMode: 'allow' | 'deny';
  /**
   * Answers in place of `failureMode: 'allow'`: a failed call is decided by this in-process limiter rather
   * than allowed outright. Unused with `deny`.
   */
  fallback?: LocalLimiter | undefined;
  log: Logger;
}

export interface DescriptorEntry {
  key: string;
  value: string;
}

export interface DecideRequest {
  domain: string;
  descriptors: Array<{
    entries: DescriptorEntry[];
    /** This descriptor's hits; overrides the request's `hitsAddend` (sent as `google.protobuf.UInt64Value`). */
    hitsAddend?: number;
  }>;
  /** Hits of every descriptor without its own; the service counts 0 as 1. */
  hitsAddend?: number;
}

export type StatusCode = 'OK' | 'OVER_LIMIT' | 'UNKNOWN';

/** One `DescriptorStatus` of the response, in the order of the request's descriptors. */
export interface DescriptorStatus {
  code: StatusCode;
  limitRemaining?: number;
  requestsPerUnit?: number;
  /** `SECOND` … `YEAR`, as the service names it. */
  unit?: string;
  durationUntilResetSeconds?: number;
}

export interface Decision {
  /** The service answered OK, or it failed and `failureMode` is `allow`. */
  allowed: boolean;
  /** The service answered OVER_LIMIT (never set by `failureMode`). */
  overLimit: boolean;
  /** True when the answer came from `failureMode` (`allow` or `deny`), not from the service. */
  failedOpen: boolean;
  /** True when the in-process fallback limiter answered (no service, or a failed call), not the service. */
  local?: boolean;
  /** `response_headers_to_add`, plus `RateLimit-Limit`, `-Remaining` and `-Reset` when the service sent none. */
  headers: DescriptorEntry[];
  statuses: DescriptorStatus[];
}

/**
 * Why a call fell back to `failureMode`: the gRPC status name (`UNAVAILABLE`, `DEADLINE_EXCEEDED`, …), or
 * `UNDECIDED` when the service answered with overall code UNKNOWN.
 */
export type FailureReason = string;

export interface RateLimitClientStats {
  /** Every `decide()` call. */
  calls: number;
  /** Calls answered by `failureMode`. */
  failures: number;
  failuresByReason: Readonly<Record<FailureReason, number>>;
  /** Failures answered `allowed` (`failureMode: 'allow'`). */
  failedOpen: number;
  /** Failures answered `denied` (`failureMode: 'deny'`). */
  failedClosed: number;
}

export interface RateLimitClient {
  /**
   * Asks `ShouldRateLimit`. Never rejects for the service's sake: an error or a missed deadline is answered
   * by `failureMode`. @throws RateLimitClientClosedError after `close()`.
   */
  decide(request: DecideRequest): Promise<Decision>;
  stats(): RateLimitClientStats;
  /** Closes the channel; calls in flight finish. */
  close(): void;
}

export type LocalLimitUnit = 'second' | 'minute' | 'hour' | 'day';

/**
 * A limit on the descriptors of `domain` whose entries have exactly these keys, in this order, and these
 * values where one is given; an entry without `value` matches any value and each value counts apart (as an
 * upstream rule's key without a value does).
 */
export interface LocalLimitRule {
  domain: string;
  entries: ReadonlyArray<{ key: string; value?: string }>;
  /** 0 turns the rule off (not limited): how a setting of 0 disables one fallback limit. */
  requestsPerUnit: number;
  unit: LocalLimitUnit;
}

export interface LocalLimiterOptions {
  rules: readonly LocalLimitRule[];
  /** Counters held at once; when a new one is needed and this many exist, the oldest goes. */
  maxKeys: number;
  now?: () => number;
}

/** Counts hits in this process, by the same descriptors the ratelimit service is asked with. */
export interface LocalLimiter {
  /** Never throws for a request: a descriptor no rule matches is not limited. */
  decide(request: DecideRequest): Decision;
  /** Counters held now (at most `maxKeys`), and counters dropped before their window ended. */
  stats(): { keys: number; evictions: number };
}
