import { PortcullisError } from '@portcullis/kit';

// The closed set of errors the inbox answers with. Each carries its HTTP status and a stable `code`;
// `toHttpError` (error-mapper.ts) is the one place that turns them into responses. No message carries a
// token, a body or a header value.

/** Something every inbox error has: the status it answers with and extra response headers. */
export abstract class InboxError extends PortcullisError {
  abstract readonly statusCode: number;
  readonly headers: Readonly<Record<string, string>> = {};
}

/** A query parameter, path parameter or JSON field that cannot be used: 400. */
export class InvalidRequestError extends InboxError {
  readonly code = 'INVALID_ARGUMENT';
  readonly statusCode = 400;
}

/**
 * No bearer token, or one that opens nothing: 401 with `WWW-Authenticate`. Also what a wrong token for an
 * unknown endpoint id gets, so the answer never tells whether the id exists.
 */
export class AuthError extends InboxError {
  readonly code = 'UNAUTHENTICATED';
  readonly statusCode = 401;
  override readonly headers: Readonly<Record<string, string>>;

  constructor(detail: 'invalid_request' | 'invalid_token', options?: ErrorOptions) {
    super(detail === 'invalid_request' ? 'a bearer token is required' : 'the token is not valid', options);
    this.headers = { 'www-authenticate': `Bearer realm="inbox", error="${detail}"` };
  }
}

/** An endpoint (to a sender, or to the admin) or a captured request that does not exist: 404. */
export class NotFoundError extends InboxError {
  readonly code = 'NOT_FOUND';
  readonly statusCode = 404;
}

/** A change the API cannot make to an endpoint that an InboxEndpoint resource defines: 409. */
export class EndpointManagedError extends InboxError {
  readonly code = 'ENDPOINT_MANAGED';
  readonly statusCode = 409;

  constructor(resource: string) {
    super(`the endpoint is defined by the InboxEndpoint resource ${resource}: change the resource`);
  }
}

/** A body above the limit; the rest is never read, so the connection is closed after the answer: 413. */
export class BodyTooLargeError extends InboxError {
  readonly code = 'BODY_TOO_LARGE';
  readonly statusCode = 413;
  override readonly headers = { connection: 'close' };

  constructor(readonly maxBodyBytes: number) {
    super(`request body larger than ${maxBodyBytes} bytes`);
  }
}

/** The store (Redis) did not answer or failed: 503. Nothing was stored; the sender should retry. */
export class StoreUnavailableError extends InboxError {
  readonly code = 'UNAVAILABLE';
  readonly statusCode = 503;
}

/**
 * The ratelimit service answered OVER_LIMIT: 429 with `Retry-After` (seconds until the window resets) and
 * the `RateLimit-*` headers.
 */
export class RateLimitedError extends InboxError {
  readonly code = 'RATE_LIMITED';
  readonly statusCode = 429;
  override readonly headers: Readonly<Record<string, string>>;

  constructor(headers: Readonly<Record<string, string>>) {
    super('too many requests');
    this.headers = headers;
  }
}

/** The ratelimit service could not be asked and `INBOX_RATELIMIT_FAILURE_MODE` is `deny`: 503. */
export class RateLimitUnavailableError extends InboxError {
  readonly code = 'RATE_LIMIT_UNAVAILABLE';
  readonly statusCode = 503;

  constructor() {
    super('rate limit service unavailable');
  }
}
