import { status as GrpcStatus } from '@grpc/grpc-js';
import { CONFIG_ERRORS } from '@portcullis/config';
import { KIT_ERRORS, listErrorCodes } from '@portcullis/kit';
import { compareErrorTable } from '@portcullis/testing';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../cli/cli-errors.js';
import { BackendError, NoConfigError, RATELIMIT_ERRORS, RequestError } from '../errors.js';
import { toGrpcStatus, toHttpError } from './error-mapper.js';

describe('ratelimit errors', () => {
  it('registers each code of the service, its CLI and its libraries once, with one status', () => {
    expect(listErrorCodes(KIT_ERRORS, CONFIG_ERRORS, RATELIMIT_ERRORS, [UsageError])).toContainEqual({
      code: 'BACKEND_UNAVAILABLE',
      status: 503,
    });
  });

  it('documents in docs/errors.md every code /json answers, with its status, and no other', () => {
    const readme = new URL('../../docs/errors.md', import.meta.url).pathname;
    const diff = compareErrorTable(readme, RATELIMIT_ERRORS);
    expect(diff).toEqual({ undocumented: [], notAnswered: [], wrongStatus: [], repeated: [] });
  });

  it('issue 17: answers a backend failure 503 over HTTP and UNAVAILABLE over gRPC, keeping the driver text private', () => {
    const err = new BackendError('redis: connect ECONNREFUSED 127.0.0.1:6379');
    expect(toHttpError(err)).toEqual({
      statusCode: 503,
      body: { error: 'rate limit backend failed', code: 'BACKEND_UNAVAILABLE' },
      headers: {},
    });
    expect(toGrpcStatus(err)).toEqual({ code: GrpcStatus.UNAVAILABLE, details: 'rate limit backend failed' });
  });

  it('maps each class to the gRPC status its HTTP status implies, and anything else to INTERNAL', () => {
    expect(toGrpcStatus(new RequestError('domain: must not be empty'))).toEqual({
      code: GrpcStatus.INVALID_ARGUMENT,
      details: 'domain: must not be empty',
    });
    expect(toGrpcStatus(new NoConfigError()).code).toBe(GrpcStatus.UNAVAILABLE);
    for (const err of [new Error('secret'), new UsageError('bad flag')]) {
      expect(toGrpcStatus(err)).toEqual({ code: GrpcStatus.INTERNAL, details: 'Internal Server Error' });
      expect(toHttpError(err)).toEqual({
        statusCode: 500,
        body: { error: 'Internal Server Error', code: 'INTERNAL' },
      });
    }
  });
});
