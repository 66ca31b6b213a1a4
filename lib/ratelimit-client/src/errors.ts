import { defineError, type ErrorClass } from '@portcullis/kit';

/** `createRateLimitClient` was given options it cannot use; `problems` lists every one. */
export class RateLimitClientOptionsError extends defineError('RATELIMIT_CLIENT_OPTIONS_INVALID') {
  constructor(readonly problems: readonly string[]) {
    super(`invalid rate-limit client options:\n  ${problems.join('\n  ')}`);
  }
}

/** `decide()` was called after `close()`. */
export class RateLimitClientClosedError extends defineError(
  'RATELIMIT_CLIENT_CLOSED',
  500,
  'rate-limit client is closed',
) {}

/** The service answered with overall code UNKNOWN: it could not decide, so `failureMode` does. */
export class UndecidedResponseError extends defineError('RATELIMIT_UNDECIDED') {
  constructor(readonly domain: string) {
    super(`ratelimit service answered UNKNOWN for domain "${domain}"`);
  }
}

/**
 * Over a rate limit: 429 with `Retry-After` (seconds until the window resets) and the `RateLimit-*` headers
 * the service answered. `message` is the service's wording (the gateway keeps the original module's).
 */
export class RateLimitedError extends defineError('RATE_LIMITED', 429) {
  override readonly headers: Readonly<Record<string, string>>;

  constructor(headers: Readonly<Record<string, string>>, message = 'too many requests') {
    super(message);
    this.headers = headers;
  }
}

/** The ratelimit service could not be asked and the failure mode is `deny`: 503, not the caller's doing. */
export class RateLimitUnavailableError extends defineError(
  'RATE_LIMIT_UNAVAILABLE',
  503,
  'rate limit service unavailable',
) {}

/** This package's registry: each class with its code and status (500: never answered as itself). */
export const RATELIMIT_CLIENT_ERRORS: readonly ErrorClass[] = [
  RateLimitClientOptionsError,
  RateLimitClientClosedError,
  UndecidedResponseError,
  RateLimitedError,
  RateLimitUnavailableError,
];
