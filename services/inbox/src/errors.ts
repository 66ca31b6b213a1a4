import { PortcullisError, UnauthenticatedError, type ErrorClass } from '@portcullis/kit';

// The closed set of errors the inbox adds to kit's (`InvalidArgumentError`, `NotFoundError`,
// `UnauthenticatedError`, `BodyTooLargeError`, `UnavailableError` for a failed store) and lib/accounts' and
// lib/ratelimit-client's. Each class carries its HTTP status and a stable `code`; `toHttpError`
// (error-mapper.ts) is the one place that turns them into responses. No message carries a token, a body or a
// header value.

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
export function authError(detail: keyof typeof AUTH_MESSAGES, options?: ErrorOptions): UnauthenticatedError {
  const error = detail === 'invalid_token' ? 'invalid_token' : 'invalid_request';
  return new UnauthenticatedError(AUTH_MESSAGES[detail], {
    challenge: `Bearer realm="inbox", error="${error}"`,
    cause: options?.cause,
  });
}

/** A replay target the egress policy refuses (a private address, a bad scheme): 422. */
export class EgressRefusedError extends PortcullisError {
  static override readonly code = 'EGRESS_REFUSED';
  static override readonly status = 422;
}

/** A replay target that could not be reached or did not answer in time: 502. */
export class TargetUnreachableError extends PortcullisError {
  static override readonly code = 'TARGET_UNREACHABLE';
  static override readonly status = 502;
}

/** A change the API cannot make to an endpoint that an InboxEndpoint resource defines: 409. */
export class EndpointManagedError extends PortcullisError {
  static override readonly code = 'ENDPOINT_MANAGED';
  static override readonly status = 409;

  constructor(resource: string) {
    super(`the endpoint is defined by the InboxEndpoint resource ${resource}: change the resource`);
  }
}

/** A dead letter whose capture is being forwarded to another of its targets: redrive it once that is done. */
export class CaptureBeingForwardedError extends PortcullisError {
  static override readonly code = 'CAPTURE_BEING_FORWARDED';
  static override readonly status = 409;
}

/**
 * The memory store holds as many capture bytes (`INBOX_MEMORY_MAX_BYTES`) or endpoints
 * (`INBOX_MEMORY_MAX_ENDPOINTS`) as it may: 507, nothing stored. Room comes back as retention trims by age,
 * or endpoints are deleted; stored captures are never evicted to make it.
 */
export class StoreFullError extends PortcullisError {
  static override readonly code = 'STORE_FULL';
  static override readonly status = 507;

  constructor(what: 'capture' | 'endpoint') {
    super(
      what === 'capture'
        ? 'the inbox store is full: capture not stored'
        : 'the inbox store is full: no more endpoints',
    );
  }
}

/** This service's registry: each class with its code and status. */
export const INBOX_ERRORS: readonly ErrorClass[] = [
  EgressRefusedError,
  TargetUnreachableError,
  EndpointManagedError,
  CaptureBeingForwardedError,
  StoreFullError,
];
