import { PortcullisError } from '@portcullis/kit';

/** The request cannot be answered as sent: empty domain, no descriptors, a bad override. */
export class RequestError extends PortcullisError {
  readonly code = 'REQUEST_INVALID';
}

/** No configuration has been loaded yet, so no decision can be made. */
export class NoConfigError extends PortcullisError {
  readonly code = 'NO_CONFIG';

  constructor() {
    super('no rate limit configuration loaded');
  }
}

/** The counter store failed or timed out; the decision is unknown. */
export class BackendError extends PortcullisError {
  readonly code = 'BACKEND_UNAVAILABLE';
}
