import { status as GrpcStatus } from '@grpc/grpc-js';
import { BackendError, NoConfigError, RequestError } from '../errors.js';

export interface ErrorBody {
  error: string;
  code: string;
}

/** The one place errors become HTTP statuses and bodies. Unknown errors are 500 and keep their text private. */
export function toHttpError(err: unknown): { statusCode: number; body: ErrorBody } {
  if (err instanceof RequestError) return { statusCode: 400, body: { error: err.message, code: err.code } };
  if (err instanceof NoConfigError) return { statusCode: 503, body: { error: err.message, code: err.code } };
  if (err instanceof BackendError) {
    return { statusCode: 500, body: { error: 'rate limit backend failed', code: err.code } };
  }
  const statusCode = httpStatusOf(err);
  if (statusCode !== undefined && statusCode >= 400 && statusCode < 500) {
    return { statusCode, body: { error: (err as Error).message, code: codeOf(err) ?? 'BAD_REQUEST' } };
  }
  return { statusCode: 500, body: { error: 'internal error', code: 'INTERNAL' } };
}

/** The one place errors become gRPC statuses. */
export function toGrpcStatus(err: unknown): { code: GrpcStatus; details: string } {
  if (err instanceof RequestError) return { code: GrpcStatus.INVALID_ARGUMENT, details: err.message };
  if (err instanceof NoConfigError) return { code: GrpcStatus.UNAVAILABLE, details: err.message };
  if (err instanceof BackendError)
    return { code: GrpcStatus.UNAVAILABLE, details: 'rate limit backend failed' };
  return { code: GrpcStatus.INTERNAL, details: 'internal error' };
}

/** Errors raised by fastify itself (bad body, too large) carry their status. */
function httpStatusOf(err: unknown): number | undefined {
  const value = (err as { statusCode?: unknown } | null)?.statusCode;
  return typeof value === 'number' ? value : undefined;
}

function codeOf(err: unknown): string | undefined {
  const value = (err as { code?: unknown } | null)?.code;
  return typeof value === 'string' ? value : undefined;
}
