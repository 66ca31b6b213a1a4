import { defineError, type ErrorClass } from './error-class.js';

/** One or more environment variables hold values that cannot be used; `problems` lists every one. */
export class SettingsError extends defineError('SETTINGS_INVALID') {
  constructor(readonly problems: readonly string[]) {
    super(`invalid settings:\n  ${problems.join('\n  ')}`);
  }
}

/** A listener's port is taken (or not ours to bind); names the setting that moves it. */
export class PortUnavailableError extends defineError('PORT_UNAVAILABLE') {
  constructor(
    readonly setting: string,
    at: { host: string; port: number; reason: 'in use' | 'not permitted' },
    options?: ErrorOptions,
  ) {
    const fix =
      at.reason === 'in use'
        ? `stop what listens there, or set ${setting} to a free port`
        : `set ${setting} to a port above 1023`;
    super(`${setting}=${at.port}: ${at.host}:${at.port} is ${at.reason}; ${fix}`, options);
  }
}

/** Nothing a client should see went wrong: what any error not answered as itself becomes. */
export class InternalError extends defineError('INTERNAL', 500, { publicMessage: 'Internal Server Error' }) {}

/** A request the server cannot read: a URL that does not decode, a body that does not parse. */
export class BadRequestError extends defineError('BAD_REQUEST', 400) {}

/** A query, path parameter or field that reads fine but cannot be used. */
export class InvalidArgumentError extends defineError('INVALID_ARGUMENT', 400) {}

/** A JSON body nested deeper than the server allows. */
export class BodyTooDeepError extends defineError('BODY_TOO_DEEP', 400) {
  constructor(readonly maxDepth: number) {
    super(`body is nested deeper than ${maxDepth} levels`);
  }
}

/** No credentials, or credentials that open nothing; `challenge` is the `WWW-Authenticate` answer. */
export class UnauthenticatedError extends defineError('UNAUTHENTICATED', 401) {
  override readonly headers: Readonly<Record<string, string>>;

  constructor(message: string, o: { challenge: string; cause?: unknown }) {
    super(message, { cause: o.cause });
    this.headers = { 'www-authenticate': o.challenge };
  }
}

/** No route, or no such resource. */
export class NotFoundError extends defineError('NOT_FOUND', 404) {}

/** The path exists for other methods; `Allow` lists them when known. */
export class MethodNotAllowedError extends defineError('METHOD_NOT_ALLOWED', 405) {
  override readonly headers: Readonly<Record<string, string>>;

  constructor(message: string, allow: readonly string[] = []) {
    super(message);
    this.headers = allow.length > 0 ? { allow: allow.join(', ') } : {};
  }
}

/** The request did not arrive within the server's time limits. */
export class RequestTimeoutError extends defineError('REQUEST_TIMEOUT', 408) {}

/** A body above the limit; the rest is never read, so the connection is closed after the answer. */
export class BodyTooLargeError extends defineError('BODY_TOO_LARGE', 413, {
  headers: { connection: 'close' },
}) {
  constructor(readonly maxBodyBytes: number) {
    super(`request body larger than ${maxBodyBytes} bytes`);
  }
}

/** A path parameter longer than the router takes. */
export class UriTooLongError extends defineError('URI_TOO_LONG', 414) {}

/** A body of a type the route does not read. */
export class UnsupportedMediaTypeError extends defineError('UNSUPPORTED_MEDIA_TYPE', 415) {}

/** Request headers above Node's limit. */
export class HeadersTooLargeError extends defineError('HEADERS_TOO_LARGE', 431) {}

/** A CPU profile or heap snapshot is already being taken in this process: V8 takes one at a time. */
export class ProfileInProgressError extends defineError('PROFILE_IN_PROGRESS', 409) {}

/** A backend (Redis, a store) failed or could not be reached: the client should retry. */
export class UnavailableError extends defineError('UNAVAILABLE', 503) {}

/** `/readyz` while a component is not ready (a backend, the first config, a shutdown under way): 503. */
export class NotReadyError extends defineError('NOT_READY', 503) {
  constructor(readonly failing: readonly string[]) {
    super(`not ready: ${failing.join(', ')}`);
  }
}

/**
 * The errors of every HTTP edge: what the HTTP parser, fastify and kit itself refuse, unknown routes, and the
 * fallback `INTERNAL`. Each service answers these whatever its own registry.
 */
export const EDGE_ERRORS: readonly ErrorClass[] = [
  InternalError,
  BadRequestError,
  BodyTooDeepError,
  NotFoundError,
  MethodNotAllowedError,
  RequestTimeoutError,
  BodyTooLargeError,
  UriTooLongError,
  NotReadyError,
  UnsupportedMediaTypeError,
  HeadersTooLargeError,
];

/** kit's registry: the edge errors and the ones two services share. */
export const KIT_ERRORS: readonly ErrorClass[] = [
  ...EDGE_ERRORS,
  SettingsError,
  PortUnavailableError,
  InvalidArgumentError,
  UnauthenticatedError,
  UnavailableError,
];

/** What the profile routes (`addProfileRoutes`) answer besides the edge errors; a service serving them lists these. */
export const PROFILE_ERRORS: readonly ErrorClass[] = [
  InvalidArgumentError,
  ProfileInProgressError,
  UnavailableError,
];
