import { describe, expect, expectTypeOf, it } from 'vitest';
import { defineError, grpcStatusOf, listErrorCodes, PortcullisError } from './error-class.js';
import { GRPC_STATUS } from './grpc-status.js';

class GoneError extends defineError('GONE', 410) {}

class TimeoutError extends defineError('TIMEOUT', 504, 'timed out') {}

class TooManyError extends defineError('TOO_MANY', 409, (max: number) => `at most ${max}`) {}

class ClosedError extends defineError('CLOSED', 500, {
  message: 'client closed',
  headers: { connection: 'close' },
  grpc: GRPC_STATUS.CANCELLED,
}) {}

class ShelfFullError extends defineError('SHELF_FULL', 507, {
  message: (max: number) => `at most ${max} books`,
  publicMessage: 'shelf full',
}) {}

abstract class ToolError extends PortcullisError {
  readonly exitCode: number = 1;
}

class ToolUsageError extends defineError('TOOL_USAGE', 500, { base: ToolError }) {
  override readonly exitCode = 2;
}

describe('defineError', () => {
  it('gives a one-line class its name, code, status, message and cause', () => {
    const cause = new Error('socket closed');
    const err = new GoneError('endpoint deleted', { cause });
    expect(err).toBeInstanceOf(PortcullisError);
    expect([err.name, err.code, err.status, err.message, err.cause]).toEqual([
      'GoneError',
      'GONE',
      410,
      'endpoint deleted',
      cause,
    ]);
    expect([GoneError.code, GoneError.status, grpcStatusOf(GoneError)]).toEqual([
      'GONE',
      410,
      GRPC_STATUS.UNKNOWN,
    ]);
  });

  it('makes the message from a fixed text or from the arguments, and sets headers and gRPC status', () => {
    const closed = new ClosedError({ cause: 'eof' });
    expect([closed.message, closed.cause, closed.headers]).toEqual([
      'client closed',
      'eof',
      { connection: 'close' },
    ]);
    expect(closed.headers).not.toBe(new ClosedError().headers);
    expect(grpcStatusOf(ClosedError)).toBe(GRPC_STATUS.CANCELLED);
    expect([new TimeoutError().message, new TooManyError(2).message]).toEqual(['timed out', 'at most 2']);
    expect([new ShelfFullError(3).message, ShelfFullError.publicMessage]).toEqual([
      'at most 3 books',
      'shelf full',
    ]);
  });

  it('types the constructor and the statics from the entry', () => {
    expectTypeOf(GoneError).constructorParameters.toEqualTypeOf<[message: string, options?: ErrorOptions]>();
    expectTypeOf(ClosedError).constructorParameters.toEqualTypeOf<[options?: ErrorOptions]>();
    expectTypeOf(ShelfFullError).constructorParameters.toEqualTypeOf<[max: number]>();
    expectTypeOf(TimeoutError).constructorParameters.toEqualTypeOf<[options?: ErrorOptions]>();
    expectTypeOf(TooManyError).constructorParameters.toEqualTypeOf<[max: number]>();
    expectTypeOf(GoneError.code).toEqualTypeOf<'GONE'>();
    expectTypeOf(GoneError.status).toEqualTypeOf<410>();
    expectTypeOf(ShelfFullError.publicMessage).toEqualTypeOf<'shelf full'>();
  });

  it('extends a family base when given one', () => {
    const err = new ToolUsageError('no such flag');
    expect(err).toBeInstanceOf(ToolError);
    expect([err.name, err.code, err.exitCode]).toEqual(['ToolUsageError', 'TOOL_USAGE', 2]);
  });

  it('registers defined classes and refuses a code defined twice', () => {
    class OtherGoneError extends defineError('GONE', 404) {}
    expect(listErrorCodes([GoneError, ShelfFullError])).toEqual([
      { code: 'GONE', status: 410 },
      { code: 'SHELF_FULL', status: 507 },
    ]);
    expect(() => listErrorCodes([GoneError], [OtherGoneError])).toThrow(
      'GONE: defined by GoneError (410) and OtherGoneError (404)',
    );
  });
});
