import { startRateLimitProcess } from '@portcullis/testing';

const CONFIG = 'domain: a\ndescriptors:\n  - key: k\n    rate_limit: {unit: hour, requests_per_unit: 5}\n';

/**
 * The service as a child process with domain `a` (5 an hour on `k`), once `/healthcheck` answers 200; with
 * `RATELIMIT_WORKERS` above 1, three processes start on a shared machine, hence the longer wait.
 */
export function startService(env: Record<string, string>, startTimeoutMs = 60_000) {
  return startRateLimitProcess({ 'a.yaml': CONFIG }, env, startTimeoutMs);
}
