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

/** The spec as an object, when it was given as the message alone. */
type SpecOf<Spec> = Spec extends ErrorMessage ? { readonly message: Spec } : Spec;

/** The class `defineError` returns, to extend by name: `class XError extends defineError(…) {}`. */
type DefinedError<C extends string, S extends number, Spec> = ErrorClass & {
  readonly code: C;
  readonly status: S;
} & (Spec extends { publicMessage: infer P } ? { readonly publicMessage: P } : unknown) &
  (new (
    ...args: ErrorArgs<Spec extends { message: infer M } ? M : undefined>
  ) => Spec extends { base: abstract new (...args: never[]) => infer I } ? I : PortcullisError);

// what defineError made: a class extending one of them takes its code from it, not from a registered parent
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
