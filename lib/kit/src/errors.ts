import { GRPC_STATUS, type GrpcStatus } from './grpc-status.js';

/**
 * The class side of every error: its stable `code`, the HTTP `status` it answers with, the gRPC status when it
 * is not the one the HTTP status implies (`grpcStatusOf`), and `publicMessage` when the message may carry a
 * driver's detail that no client should see. A status of 500 means "never answered as itself": such an error
 * is a programming or start-up failure and any request it reaches gets 500 `INTERNAL`.
 */
export interface ErrorClass {
  readonly name: string;
  readonly code: string;
  readonly status: number;
  readonly grpcStatus?: GrpcStatus | undefined;
  readonly publicMessage?: string | undefined;
  readonly prototype: PortcullisError;
}

/**
 * The root of every error Portcullis raises on purpose. Each concrete class is declared with `defineError`,
 * which sets the static `code` and `status` (see `ErrorClass`); instances read them, so callers branch on the
 * class or the code, never on the message text. `headers` go out with the HTTP answer.
 */
export abstract class PortcullisError extends Error {
  static readonly code: string = 'INTERNAL';
  static readonly status: number = 500;
  static readonly grpcStatus: GrpcStatus | undefined = undefined;
  static readonly publicMessage: string | undefined = undefined;
  readonly code: string;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>> = {};

  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.code = (new.target as unknown as ErrorClass).code;
    this.status = (new.target as unknown as ErrorClass).status;
  }
}

/** An error's fixed message, or how its constructor's arguments make one. */
type ErrorMessage = string | ((...args: never[]) => string);

/** What `defineError` may extend besides `PortcullisError`: an abstract family of it (the inbox CLI's). */
type ErrorBase = abstract new (message: string, options?: ErrorOptions) => PortcullisError;

/** The optional parts of an error's entry; `grpc` and `publicMessage` as in `ErrorClass`. */
interface ErrorSpec {
  /** A fixed message, or how the constructor's arguments make it; without it, the constructor takes one. */
  readonly message?: ErrorMessage;
  /** Sent with every answer of the error. */
  readonly headers?: Readonly<Record<string, string>>;
  readonly grpc?: GrpcStatus;
  readonly publicMessage?: string;
  readonly base?: ErrorBase;
}

/** The constructor's arguments: the message function's, `(options?)` or `(message, options?)`. */
type ErrorArgs<M> = M extends (...args: infer A) => string
  ? A
  : M extends string
    ? [options?: ErrorOptions]
    : [message: string, options?: ErrorOptions];

/** A spec given as its message alone, as an object. */
type SpecOf<Spec> = Spec extends ErrorMessage ? { readonly message: Spec } : Spec;

/** The class `defineError` returns, to extend by name: `class XError extends defineError(…) {}`. */
type DefinedError<C extends string, S extends number, Spec> = ErrorClass & {
  readonly code: C;
  readonly status: S;
} & (Spec extends { publicMessage: infer P } ? { readonly publicMessage: P } : unknown) &
  (new (
    ...args: ErrorArgs<Spec extends { message: infer M } ? M : undefined>
  ) => Spec extends { base: abstract new (...args: never[]) => infer I } ? I : PortcullisError);

const DEFINED = new WeakSet<object>();

/**
 * One entry of a package's registry, in one line:
 * `export class TimeoutError extends defineError('TIMEOUT', 504, 'upstream timed out') {}`. The status defaults
 * to 500 (never answered as itself); `spec` is the message alone or an `ErrorSpec`. An error with fields of
 * its own sets them in its class body.
 */
export function defineError<
  C extends string,
  S extends number = 500,
  const Spec extends ErrorMessage | ErrorSpec = ErrorSpec,
>(code: C, status?: S, spec?: Spec): DefinedError<C, S, SpecOf<Spec>> {
  const {
    message,
    headers,
    grpc,
    publicMessage,
    base = PortcullisError,
  }: ErrorSpec = typeof spec === 'string' || typeof spec === 'function' ? { message: spec } : (spec ?? {});
  const Base = base as typeof PortcullisError;
  class Defined extends Base {
    static override readonly code: string = code;
    static override readonly status: number = status ?? 500;
    static override readonly grpcStatus = grpc;
    static override readonly publicMessage = publicMessage;
    override readonly headers: Readonly<Record<string, string>>;

    constructor(...args: unknown[]) {
      super(...messageArgs(message, args));
      this.headers = { ...headers };
    }
  }
  DEFINED.add(Defined);
  return Defined as unknown as DefinedError<C, S, SpecOf<Spec>>;
}

function messageArgs(message: ErrorMessage | undefined, args: unknown[]): [string, ErrorOptions?] {
  if (typeof message === 'function') return [message(...(args as never[]))];
  if (message !== undefined) return [message, args[0] as ErrorOptions | undefined];
  return [args[0] as string, args[1] as ErrorOptions | undefined];
}

/** One or more environment variables hold values that cannot be used; `problems` lists every one. */
export class SettingsError extends defineError('SETTINGS_INVALID') {
  constructor(readonly problems: readonly string[]) {
    super(`invalid settings:\n  ${problems.join('\n  ')}`);
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

/** The gRPC status an HTTP status implies, as grpc-gateway maps them back; `UNKNOWN` past the table. */
const GRPC_BY_HTTP: Readonly<Record<number, GrpcStatus>> = {
  400: GRPC_STATUS.INVALID_ARGUMENT,
  401: GRPC_STATUS.UNAUTHENTICATED,
  403: GRPC_STATUS.PERMISSION_DENIED,
  404: GRPC_STATUS.NOT_FOUND,
  409: GRPC_STATUS.ALREADY_EXISTS,
  429: GRPC_STATUS.RESOURCE_EXHAUSTED,
  500: GRPC_STATUS.INTERNAL,
  501: GRPC_STATUS.UNIMPLEMENTED,
  503: GRPC_STATUS.UNAVAILABLE,
  504: GRPC_STATUS.DEADLINE_EXCEEDED,
};

export function grpcStatusOf(type: ErrorClass): GrpcStatus {
  return type.grpcStatus ?? GRPC_BY_HTTP[type.status] ?? GRPC_STATUS.UNKNOWN;
}

/**
 * Every code of `registries` once with its status, sorted by code. Throws when two classes claim one code with
 * different statuses, or a class does not set its own code (it would answer as its parent).
 */
export function listErrorCodes(
  ...registries: ReadonlyArray<readonly ErrorClass[]>
): Array<{ code: string; status: number }> {
  const byCode = new Map<string, ErrorClass>();
  for (const type of registries.flat()) {
    const parent = Object.getPrototypeOf(type) as ErrorClass;
    if (parent !== PortcullisError && !DEFINED.has(parent) && parent.code === type.code) {
      throw new Error(`${type.name}: sets no code of its own (answers as ${parent.name})`);
    }
    const seen = byCode.get(type.code);
    if (seen && seen !== type) {
      throw new Error(
        `${type.code}: defined by ${seen.name} (${seen.status}) and ${type.name} (${type.status})`,
      );
    }
    byCode.set(type.code, type);
  }
  return [...byCode.values()]
    .map((t) => ({ code: t.code, status: t.status }))
    .sort((a, b) => a.code.localeCompare(b.code));
}
