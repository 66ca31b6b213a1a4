import { defineError, PROFILE_ERRORS, type ErrorClass } from '@portcullis/kit';

/** The request cannot be answered as sent: empty domain, no descriptors, a bad override. */
export class RequestError extends defineError('REQUEST_INVALID', 400) {}

/** No configuration has been loaded yet, so no decision can be made. */
export class NoConfigError extends defineError('NO_CONFIG', 503, 'no rate limit configuration loaded') {}

/**
 * The counter store failed or timed out; the decision is unknown. A backend outage: 503 over HTTP, `UNAVAILABLE`
 * over gRPC; the message (the driver's text) stays in the logs.
 */
export class BackendError extends defineError('BACKEND_UNAVAILABLE', 503, {
  publicMessage: 'rate limit backend failed',
}) {}

/** This service's registry: each class with its code and status; kit's profile errors for the debug port's `/debug/pprof/`. */
export const RATELIMIT_ERRORS: readonly ErrorClass[] = [
  RequestError,
  NoConfigError,
  BackendError,
  ...PROFILE_ERRORS,
];
