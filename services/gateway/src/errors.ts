import { defineError, NotFoundError, UnauthenticatedError, type ErrorClass } from '@portcullis/kit';

// The closed set of errors the gateway adds to kit's, lib/accounts' and lib/ratelimit-client's. Each class
// carries its code and HTTP status; error-mapper.ts is the one place that turns them into responses. A handler
// answers with a status by throwing one of these or kit's (`NotFoundError`, `InvalidArgumentError`, ...).

/** No route serves the path (under the base path, or the path leaves it): 404 `Route not found`. */
export function routeNotFound(): NotFoundError {
  return new NotFoundError('Route not found');
}

/** Missing, malformed, expired or revoked credentials: 401 with `WWW-Authenticate`. */
export function authError(
  message: string,
  o: { scheme: 'Bearer' | 'Cookie'; detail?: string; cause?: unknown },
): UnauthenticatedError {
  const challenge =
    o.scheme === 'Bearer'
      ? `Bearer realm="api"${o.detail ? `, error="${o.detail}"` : ''}`
      : 'Cookie realm="api"';
  return new UnauthenticatedError(message, { challenge, cause: o.cause });
}

/** An API key that is unknown, expired or revoked, or a key header sent twice: 401. */
export function apiKeyError(message: string, header: string): UnauthenticatedError {
  return new UnauthenticatedError(message, { challenge: `ApiKey realm="api", header="${header}"` });
}

/** A handler's refusal of a caller it knows, or a caller without the role a route needs: 403. */
export class ForbiddenError extends defineError('FORBIDDEN', 403) {}

/** A handler's refusal of a change that conflicts with what exists: 409. */
export class ConflictError extends defineError('CONFLICT', 409) {}

/** A request path with an escaped `/` or `\` in a segment, or an escape that is not UTF-8: 400. */
export class BadPathError extends defineError('BAD_PATH', 400) {}

/** A JSON body that does not parse: 400. */
export class BadJsonError extends defineError('BAD_JSON', 400) {}

/** A multipart/form-data body that does not parse: 400. */
export class BadMultipartError extends defineError('BAD_MULTIPART', 400) {}

/** An ApiRoute names a handler this gateway does not have: 501. */
export class UnknownHandlerError extends defineError(
  'UNKNOWN_HANDLER',
  501,
  (handler: string) => `handler ${handler} is not available`,
) {}

/** The upstream Service cannot be reached: 502. */
export class UpstreamUnavailableError extends defineError(
  'UPSTREAM_UNAVAILABLE',
  502,
  'upstream unavailable',
) {}

/** The upstream Service did not answer within the route's timeout: 504. */
export class UpstreamTimeoutError extends defineError('UPSTREAM_TIMEOUT', 504, 'upstream timed out') {}

/**
 * Parameter specs that cannot be used: unknown sanitizers, bad syntax, a parameter named twice. Thrown by
 * `parseParameterSpecs` when routes load. The message is every problem, in spec order, joined by one
 * space; an unknown sanitizer reads `Sanitizer: '<name>' is no valid sanitizer`, as the original module
 * answered it (with 400, which a spec checked only at request time still gets).
 */
export class ParameterSpecError extends defineError('PARAMETER_SPEC_INVALID', 400) {
  constructor(
    /** One sentence per problem. */
    readonly problems: readonly string[],
    /** Every unknown sanitizer name, as written, once each. */
    readonly unknownSanitizers: readonly string[],
  ) {
    super(problems.join(' '));
  }
}

/**
 * Required parameters absent or null: 400 naming every one, in spec order, with the original module's
 * sentence for each, joined by one space:
 * `Required parameter: 'id|int' missing! Required parameter: 'name' missing!`
 */
export class MissingParametersError extends defineError('MISSING_REQUIRED_PARAMETER', 400) {
  /** The missing parameters' names, in spec order. */
  readonly missing: readonly string[];

  constructor(specs: ReadonlyArray<{ readonly name: string; readonly spec: string }>) {
    super(specs.map((s) => `Required parameter: '${s.spec}' missing!`).join(' '));
    this.missing = specs.map((s) => s.name);
  }
}

/**
 * A token names an identity provider whose keys the gateway has never been able to fetch (its JWKS URL is
 * down): 503 with `Retry-After`, the seconds until the gateway asks the provider again. Not a 401: the
 * token may be good, and the outage is not the client's doing.
 */
export class JwksUnavailableError extends defineError('JWKS_UNAVAILABLE', 503) {
  override readonly headers: Readonly<Record<string, string>>;

  constructor(retryAfterSeconds: number) {
    super("the keys of the token's issuer cannot be fetched, retry shortly");
    this.headers = { 'retry-after': String(retryAfterSeconds) };
  }
}

const INVALID_GRANT = { 'www-authenticate': 'Bearer realm="api", error="invalid_grant"' };

/**
 * A refresh token that is not a live one: malformed, unknown, expired, or of an ended family: 401. Sign
 * in again.
 */
export class RefreshTokenInvalidError extends defineError('REFRESH_TOKEN_INVALID', 401, {
  message: 'Invalid refresh token',
  headers: INVALID_GRANT,
}) {}

/**
 * A refresh token that was already spent: someone holds a copy. Its whole family (every refresh token of
 * that sign-in and the access tokens issued from them) is revoked: 401.
 */
export class RefreshTokenReusedError extends defineError('REFRESH_TOKEN_REUSED', 401, {
  message: 'Refresh token reused: every token of its sign-in is revoked',
  headers: INVALID_GRANT,
}) {}

/**
 * The admin API while `GATEWAY_ADMIN_TOKEN` is empty: 404, there is no admin (as the inbox's
 * `INBOX_ADMIN_TOKEN`).
 */
export class AdminDisabledError extends defineError(
  'ADMIN_DISABLED',
  404,
  'the admin API is off: GATEWAY_ADMIN_TOKEN is not set',
) {}

/** This service's registry: each class with its code and status. */
export const GATEWAY_ERRORS: readonly ErrorClass[] = [
  ForbiddenError,
  ConflictError,
  BadPathError,
  BadJsonError,
  BadMultipartError,
  UnknownHandlerError,
  UpstreamUnavailableError,
  UpstreamTimeoutError,
  ParameterSpecError,
  MissingParametersError,
  JwksUnavailableError,
  RefreshTokenInvalidError,
  RefreshTokenReusedError,
  AdminDisabledError,
];
