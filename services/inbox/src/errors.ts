import { defineError, UnauthenticatedError, type ErrorClass } from '@portcullis/kit';

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
  admin: 'give the admin token as Authorization: Bearer <token>',
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
export class EgressRefusedError extends defineError('EGRESS_REFUSED', 422) {}

/**
 * A replay of a capture that cannot be sent: a nested path with a `..` segment (it could leave the target's
 * path), or a request node:http cannot write (a header value beyond Latin-1, imported from a HAR): 422.
 */
export class CaptureUnsendableError extends defineError('CAPTURE_UNSENDABLE', 422) {}

/** A replay target that could not be reached or did not answer in time: 502. */
export class TargetUnreachableError extends defineError('TARGET_UNREACHABLE', 502) {}

/** A change the API cannot make to an endpoint that an InboxEndpoint resource defines: 409. */
export class EndpointManagedError extends defineError(
  'ENDPOINT_MANAGED',
  409,
  (resource: string) =>
    `the endpoint is defined by the InboxEndpoint resource ${resource}: change the resource`,
) {}

/** A dead letter whose capture is being forwarded to another of its targets: redrive it once that is done. */
export class CaptureBeingForwardedError extends defineError('CAPTURE_BEING_FORWARDED', 409) {}

/**
 * The memory store holds as many capture bytes (`INBOX_MEMORY_MAX_BYTES`) or endpoints
 * (`INBOX_MEMORY_MAX_ENDPOINTS`) as it may: 507, nothing stored. Room comes back as retention trims by age,
 * or endpoints are deleted; stored captures are never evicted to make it.
 */
export class StoreFullError extends defineError('STORE_FULL', 507, (what: 'capture' | 'endpoint') =>
  what === 'capture'
    ? 'the inbox store is full: capture not stored'
    : 'the inbox store is full: no more endpoints',
) {}

/** A share token on anything but reading captures (a change, a replay, the shares themselves): 403. */
export class ShareReadOnlyError extends defineError(
  'SHARE_READ_ONLY',
  403,
  "a share link only reads captures: this needs the endpoint's owner",
) {}

/** A share link beyond the bound per endpoint (`MAX_SHARES_PER_ENDPOINT`): 409, revoke one first. */
export class ShareLimitError extends defineError(
  'SHARE_LIMIT_REACHED',
  409,
  (max: number) => `an endpoint has at most ${max} share links: revoke one first`,
) {}

/** The admin API while `INBOX_ADMIN_TOKEN` is empty: 404, there is no admin. */
export class AdminDisabledError extends defineError(
  'ADMIN_DISABLED',
  404,
  'the admin view is off: INBOX_ADMIN_TOKEN is not set',
) {}

/**
 * A signature secret sent to an inbox on Redis without `INBOX_SECRETS_KEY`: 503, nothing stored. Refused
 * rather than kept in clear; the operator of the inbox sets the key.
 */
export class SecretsKeyMissingError extends defineError(
  'SECRETS_KEY_MISSING',
  503,
  'this inbox keeps no signature secrets: INBOX_SECRETS_KEY is not set',
) {}

/**
 * A live stream beyond `INBOX_SSE_MAX_STREAMS_PER_ADDRESS` open from one client address in this process: 429,
 * close one first.
 */
export class TooManyStreamsError extends defineError(
  'TOO_MANY_STREAMS',
  429,
  (max: number) => `at most ${max} live streams may be open from one address: close one first`,
) {}

/** A live stream beyond `INBOX_SSE_MAX_STREAMS` open in this process: 503, another process may take it. */
export class StreamsFullError extends defineError(
  'STREAMS_FULL',
  503,
  (max: number) => `this inbox process has ${max} live streams open, its most: retry later`,
) {}

/** This service's registry: each class with its code and status. */
export const INBOX_ERRORS: readonly ErrorClass[] = [
  EgressRefusedError,
  CaptureUnsendableError,
  TargetUnreachableError,
  EndpointManagedError,
  CaptureBeingForwardedError,
  StoreFullError,
  ShareReadOnlyError,
  ShareLimitError,
  AdminDisabledError,
  SecretsKeyMissingError,
  TooManyStreamsError,
  StreamsFullError,
];
