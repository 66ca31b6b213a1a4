import { PortcullisError } from '@portcullis/kit';

/** `createRateLimitClient` was given options it cannot use; `problems` lists every one. */
export class RateLimitClientOptionsError extends PortcullisError {
  readonly code = 'RATELIMIT_CLIENT_OPTIONS_INVALID';

  constructor(readonly problems: readonly string[]) {
    super(`invalid rate-limit client options:\n  ${problems.join('\n  ')}`);
  }
}

/** `decide()` was called after `close()`. */
export class RateLimitClientClosedError extends PortcullisError {
  readonly code = 'RATELIMIT_CLIENT_CLOSED';

  constructor() {
    super('rate-limit client is closed');
  }
}

/** The service answered with overall code UNKNOWN: it could not decide, so `failureMode` does. */
export class UndecidedResponseError extends PortcullisError {
  readonly code = 'RATELIMIT_UNDECIDED';

  constructor(readonly domain: string) {
    super(`ratelimit service answered UNKNOWN for domain "${domain}"`);
  }
}
