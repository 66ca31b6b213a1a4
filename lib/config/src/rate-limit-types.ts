export const RATE_LIMIT_UNITS = ['SECOND', 'MINUTE', 'HOUR', 'DAY', 'WEEK', 'MONTH', 'YEAR'] as const;
export type RateLimitUnit = (typeof RATE_LIMIT_UNITS)[number];

/** Window lengths as upstream defines them: a month is 30 days and a year 365, not calendar periods. */
export const UNIT_SECONDS: Readonly<Record<RateLimitUnit, number>> = {
  SECOND: 1,
  MINUTE: 60,
  HOUR: 3600,
  DAY: 86_400,
  WEEK: 604_800,
  MONTH: 2_592_000,
  YEAR: 31_536_000,
};

/** How hits are counted against a limit; YAML `algorithm`, `burst` selecting `token_bucket`. */
export const RATE_LIMIT_ALGORITHMS = ['fixed_window', 'sliding_window', 'token_bucket'] as const;
export type RateLimitAlgorithm = (typeof RATE_LIMIT_ALGORITHMS)[number];

export type LimitedPolicy = {
  unlimited: false;
  unit: RateLimitUnit;
  requestsPerUnit: number;
  name: string | undefined;
  replaces: readonly string[];
  algorithm: RateLimitAlgorithm;
  /** The bucket's capacity when `algorithm` is `token_bucket`, else undefined. */
  burst: number | undefined;
};

export type RateLimitPolicy =
  { unlimited: true; name: string | undefined; replaces: readonly string[] } | LimitedPolicy;

export interface DescriptorRule {
  key: string;
  /** Empty when the rule matches any value of `key`. */
  value: string;
  rateLimit: RateLimitPolicy | undefined;
  /** `rate_limits` from its second entry on; `rateLimit` holds the first. Empty with `rate_limit`. */
  moreRateLimits: readonly LimitedPolicy[];
  shadowMode: boolean;
  detailedMetric: boolean;
  /** Soft limit: the request is refused only when every quota descriptor is over its limit. */
  quotaMode: boolean;
  /** Statistics name the request's value at this level (key-only and wildcard rules). */
  valueToMetric: boolean;
  /** Every value matching the wildcard `value` shares one counter and one statistic. */
  shareThreshold: boolean;
  /** Free-form data returned in the response's dynamic metadata; undefined when absent. */
  metadata: Readonly<Record<string, StructValue>> | undefined;
  descriptors: readonly DescriptorRule[];
}

/** A value a `google.protobuf.Struct` can hold. */
export type StructValue = null | boolean | number | string | StructValue[] | { [key: string]: StructValue };

/** One validated rate-limit configuration: a YAML file, a RateLimitConfig resource or an xDS resource. */
export interface RateLimitConfig {
  /** Where it came from (file name, `namespace/name`), used in every error message. */
  source: string;
  domain: string;
  descriptors: readonly DescriptorRule[];
}
