import { errorCodes } from 'fastify';
import { describe, expect, it } from 'vitest';
import { createErrorMapper, createGrpcErrorMapper, FRAMEWORK_ERRORS_BY_STATUS } from './error-mapper.js';
import { PortcullisError } from './error-class.js';
import { BodyTooDeepError, UnauthenticatedError, UnavailableError } from './errors.js';
import { GRPC_STATUS } from './grpc-status.js';

class OutageError extends PortcullisError {
  static override readonly code = 'OUTAGE';
  static override readonly status = 503;
  static override readonly grpcStatus = GRPC_STATUS.RESOURCE_EXHAUSTED;
  static override readonly publicMessage = 'try later';
}

const INTERNAL = { statusCode: 500, body: { error: 'Internal Server Error', code: 'INTERNAL' } };

describe('createErrorMapper', () => {
  const toHttpError = createErrorMapper([UnauthenticatedError, OutageError]);

  it('answers a listed class with its status, code, message and headers', () => {
    const err = new UnauthenticatedError('sign in first', { challenge: 'Bearer realm="x"' });
    expect(toHttpError(err)).toEqual({
      statusCode: 401,
      body: { error: 'sign in first', code: 'UNAUTHENTICATED' },
      headers: { 'www-authenticate': 'Bearer realm="x"' },
    });
    expect(toHttpError(new OutageError('redis: ECONNREFUSED')).body).toEqual({
      error: 'try later',
      code: 'OUTAGE',
    });
  });

  it("answers kit's edge errors whatever the service lists", () => {
    expect(toHttpError(new BodyTooDeepError(3))).toMatchObject({
      statusCode: 400,
      body: { error: 'body is nested deeper than 3 levels', code: 'BODY_TOO_DEEP' },
    });
  });

  it('answers an error of a class not listed, or no error class at all, 500 INTERNAL with a fixed text', () => {
    for (const err of [new UnavailableError('secret'), new Error('secret'), 'secret', undefined]) {
      expect(toHttpError(err)).toEqual(INTERNAL);
    }
  });

  it("answers every 4xx error fastify has with the stable code of its status, never fastify's", () => {
    for (const [name, type] of Object.entries(errorCodes)) {
      const err = new (type as new () => Error & { statusCode?: number })();
      if (err.statusCode === undefined || err.statusCode >= 500) continue;
      const answer = toHttpError(err);
      expect([name, answer.statusCode]).toEqual([name, err.statusCode]);
      expect(answer.body.code).toBe(FRAMEWORK_ERRORS_BY_STATUS[err.statusCode]?.code);
      expect(answer.body.code).not.toMatch(/^FST_/);
    }
  });

  it('answers a library error carrying a 4xx status not in the table 400 BAD_REQUEST', () => {
    const err = Object.assign(new Error('range not satisfiable'), { statusCode: 416 });
    expect(toHttpError(err)).toEqual({
      statusCode: 400,
      body: { error: 'range not satisfiable', code: 'BAD_REQUEST' },
    });
  });
});

describe('createGrpcErrorMapper', () => {
  const toGrpcStatus = createGrpcErrorMapper([UnauthenticatedError, OutageError]);

  it('derives the gRPC status from the HTTP one unless the class names its own', () => {
    const err = new UnauthenticatedError('sign in first', { challenge: 'Bearer' });
    expect(toGrpcStatus(err)).toEqual({ code: GRPC_STATUS.UNAUTHENTICATED, details: 'sign in first' });
    expect(toGrpcStatus(new OutageError('x'))).toEqual({
      code: GRPC_STATUS.RESOURCE_EXHAUSTED,
      details: 'try later',
    });
  });

  it('answers anything else INTERNAL with a fixed text', () => {
    expect(toGrpcStatus(new Error('secret'))).toEqual({
      code: GRPC_STATUS.INTERNAL,
      details: 'Internal Server Error',
    });
  });
});
