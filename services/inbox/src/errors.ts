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

const AUTH_MESSAGES = {
  invalid_request: "sign in, or give the endpoint's token as Authorization: Bearer <token>",
  invalid_token: 'the token is not valid',
  sign_in: 'sign in first',
  login_failed: 'wrong user name or password',
} as const;

/**
 * No credentials, or credentials that open nothing: 401 with `WWW-Authenticate`. Also what a wrong token for
 * an unknown endpoint id gets, so the answer never tells whether the id exists.
 */
export class AuthError extends InboxError {
  readonly code = 'UNAUTHENTICATED';
  readonly statusCode = 401;
  override readonly headers: Readonly<Record<string, string>>;

  constructor(detail: keyof typeof AUTH_MESSAGES, options?: ErrorOptions) {
    super(AUTH_MESSAGES[detail], options);
    const error = detail === 'invalid_token' ? 'invalid_token' : 'invalid_request';
    this.headers = { 'www-authenticate': `Bearer realm="inbox", error="${error}"` };
  }
}

/** A replay target the egress policy refuses (a private address, a bad scheme): 422. */
export class EgressRefusedError extends InboxError {
  readonly code = 'EGRESS_REFUSED';
  readonly statusCode = 422;
}

/** A replay target that could not be reached or did not answer in time: 502. */
export class TargetUnreachableError extends InboxError {
  readonly code = 'TARGET_UNREACHABLE';
  readonly statusCode = 502;
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

/**
 * The store (Redis) did not answer or failed: 503; the sender should retry. Nothing was stored, unless the
 * write reached a Redis that died before replying: then a retry stores the capture twice (at-least-once).
 */
export class StoreUnavailableError extends InboxError {
  readonly code = 'UNAVAILABLE';
  readonly statusCode = 503;
}

/**
 * The memory store holds as many capture bytes (`INBOX_MEMORY_MAX_BYTES`) or endpoints
 * (`INBOX_MEMORY_MAX_ENDPOINTS`) as it may: 507, nothing stored. Room comes back as retention trims by age,
 * or endpoints are deleted; stored captures are never evicted to make it.
 */
export class StoreFullError extends InboxError {
  readonly code = 'STORE_FULL';
  readonly statusCode = 507;

  constructor(what: 'capture' | 'endpoint') {
    super(
      what === 'capture'
        ? 'the inbox store is full: capture not stored'
        : 'the inbox store is full: no more endpoints',
    );
  }
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
