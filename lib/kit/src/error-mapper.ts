import {
  BadRequestError,
  BodyTooLargeError,
  EDGE_ERRORS,
  HeadersTooLargeError,
  InternalError,
  MethodNotAllowedError,
  NotFoundError,
  RequestTimeoutError,
  UnsupportedMediaTypeError,
  UriTooLongError,
} from './errors.js';
import { grpcStatusOf, PortcullisError, type ErrorClass } from './error-class.js';
import { GRPC_STATUS, type GrpcStatus } from './grpc-status.js';

/** What an error answers over HTTP: status, `{error, code}` body and extra headers. */
export interface HttpErrorAnswer {
  statusCode: number;
  body: { error: string; code: string };
  headers?: Record<string, string>;
}

/** The one mapping from an error to an HTTP answer, per service. */
export type ErrorMapper = (err: unknown) => HttpErrorAnswer;

/**
 * fastify's own client errors (`FST_ERR_CTP_INVALID_JSON_BODY`, a body over its limit, a media type no parser
 * takes, a URL it cannot decode) and other 4xx errors a library raises, by their status: the same stable code in
 * every service, never the library's own. A 4xx status not listed is answered 400 `BAD_REQUEST`.
 */
export const FRAMEWORK_ERRORS_BY_STATUS: Readonly<Record<number, ErrorClass>> = {
  400: BadRequestError,
  404: NotFoundError,
  405: MethodNotAllowedError,
  408: RequestTimeoutError,
  413: BodyTooLargeError,
  414: UriTooLongError,
  415: UnsupportedMediaTypeError,
  431: HeadersTooLargeError,
};

const INTERNAL_ANSWER: HttpErrorAnswer = {
  statusCode: InternalError.status,
  body: { error: InternalError.publicMessage, code: InternalError.code },
};

/** The edge's own refusals, whatever the service answers: fastify's client errors and kit's edge errors. */
export function toEdgeError(err: unknown): HttpErrorAnswer | undefined {
  if (err instanceof PortcullisError) {
    return EDGE_ERRORS.includes(classOf(err)) ? answerOf(err) : undefined;
  }
  if (!(err instanceof Error)) return undefined;
  const status = (err as { statusCode?: unknown }).statusCode;
  if (typeof status !== 'number' || status < 400 || status >= 500) return undefined;
  const type = FRAMEWORK_ERRORS_BY_STATUS[status] ?? BadRequestError;
  return { statusCode: type.status, body: { error: err.message, code: type.code } };
}

/**
 * A service's mapping: each error of a class in `answered` (or kit's `EDGE_ERRORS`) answers its class's status
 * and code with its message (or the class's `publicMessage`) and headers; anything else, a subclass not listed
 * or a listed class of status 500 included, is 500 `INTERNAL` with a fixed text (kit's error handler logs it
 * with its stack).
 */
export function createErrorMapper(answered: readonly ErrorClass[]): ErrorMapper {
  const known = new Set(answered);
  return (err) => {
    const edge = toEdgeError(err);
    if (edge) return edge;
    return err instanceof PortcullisError && known.has(classOf(err)) ? answerOf(err) : INTERNAL_ANSWER;
  };
}

/**
 * The classes a mapper made from `answered` answers as themselves, one per code: kit's `EDGE_ERRORS` and
 * `answered`, without the status-500 ones (they answer `INTERNAL`, which is there).
 */
export function listAnsweredErrors(answered: readonly ErrorClass[]): ErrorClass[] {
  const byCode = new Map<string, ErrorClass>();
  for (const type of [...EDGE_ERRORS, ...answered]) {
    if (type.status !== InternalError.status || type === InternalError) byCode.set(type.code, type);
  }
  return [...byCode.values()];
}

/** The gRPC side of `createErrorMapper`: `INTERNAL` with a fixed text for anything not in `answered`. */
export function createGrpcErrorMapper(
  answered: readonly ErrorClass[],
): (err: unknown) => { code: GrpcStatus; details: string } {
  const known = new Set(answered);
  return (err) => {
    const type = err instanceof PortcullisError ? classOf(err) : undefined;
    if (!type || !known.has(type) || type.status === InternalError.status) {
      return { code: GRPC_STATUS.INTERNAL, details: InternalError.publicMessage };
    }
    return { code: grpcStatusOf(type), details: type.publicMessage ?? (err as Error).message };
  };
}

function classOf(err: PortcullisError): ErrorClass {
  return err.constructor as unknown as ErrorClass;
}

function answerOf(err: PortcullisError): HttpErrorAnswer {
  const type = classOf(err);
  if (type.status === InternalError.status) return INTERNAL_ANSWER;
  return {
    statusCode: type.status,
    body: { error: type.publicMessage ?? err.message, code: type.code },
    headers: { ...err.headers },
  };
}
