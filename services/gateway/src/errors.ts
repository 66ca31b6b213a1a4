import { PortcullisError } from '@portcullis/kit';

const STATUS_CODES: Readonly<Record<number, string>> = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHENTICATED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  409: 'CONFLICT',
  422: 'UNPROCESSABLE',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

/**
 * An error a handler may throw to answer with a status: `throw new HttpError(404, 'user not found')`
 * answers 404 `{"error":"user not found"}`. Anything else thrown by a handler answers 500.
 */
export class HttpError extends PortcullisError {
  readonly code: string;

  constructor(
    readonly statusCode: number,
    message: string,
    opts: { code?: string; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(message, { cause: opts.cause });
    this.code = opts.code ?? STATUS_CODES[statusCode] ?? `HTTP_${statusCode}`;
    this.headers = opts.headers ?? {};
  }

  readonly headers: Record<string, string>;
}

/** No route serves the path (under the base path, or the path leaves it): 404 `Route not found`. */
export class RouteNotFoundError extends HttpError {
  constructor() {
    super(404, 'Route not found', { code: 'NOT_FOUND' });
  }
}

/** Missing, malformed, expired or revoked credentials: 401 with `WWW-Authenticate`. */
export class AuthError extends HttpError {
  constructor(message: string, opts: { scheme: 'Bearer' | 'Cookie'; detail?: string; cause?: unknown }) {
    const challenge =
      opts.scheme === 'Bearer'
        ? `Bearer realm="api"${opts.detail ? `, error="${opts.detail}"` : ''}`
        : 'Cookie realm="api"';
    super(401, message, {
      code: 'UNAUTHENTICATED',
      headers: { 'www-authenticate': challenge },
      cause: opts.cause,
    });
  }
}

/**
 * Parameter specs that cannot be used: unknown sanitizers, bad syntax, a parameter named twice. Thrown by
 * `parseParameterSpecs` when routes load. The message is every problem, in spec order, joined by one
 * space; an unknown sanitizer reads `Sanitizer: '<name>' is no valid sanitizer`, as the original module
 * answered it (with 400, which a spec checked only at request time still gets).
 */
export class ParameterSpecError extends HttpError {
  constructor(
    /** One sentence per problem. */
    readonly problems: readonly string[],
    /** Every unknown sanitizer name, as written, once each. */
    readonly unknownSanitizers: readonly string[],
  ) {
    super(400, problems.join(' '), { code: 'PARAMETER_SPEC_INVALID' });
  }
}

/**
 * Required parameters absent or null: 400 naming every one, in spec order, with the original module's
 * sentence for each, joined by one space:
 * `Required parameter: 'id|int' missing! Required parameter: 'name' missing!`
 */
export class MissingParametersError extends HttpError {
  /** The missing parameters' names, in spec order. */
  readonly missing: readonly string[];

  constructor(specs: ReadonlyArray<{ readonly name: string; readonly spec: string }>) {
    super(400, specs.map((s) => `Required parameter: '${s.spec}' missing!`).join(' '), {
      code: 'MISSING_REQUIRED_PARAMETER',
    });
    this.missing = specs.map((s) => s.name);
  }
}
