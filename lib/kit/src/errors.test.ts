import { describe, expect, it } from 'vitest';
import { listErrorCodes, PortcullisError } from './error-class.js';
import { InvalidArgumentError, KIT_ERRORS, NotFoundError } from './errors.js';

class TeapotError extends PortcullisError {
  static override readonly code = 'NOT_FOUND';
  static override readonly status = 418;
}

class LooseNotFoundError extends NotFoundError {}

describe('error registries', () => {
  it('gives each instance its class code and status', () => {
    const err = new InvalidArgumentError('limit: expected an integer');
    expect([err.name, err.code, err.status, err.message]).toEqual([
      'InvalidArgumentError',
      'INVALID_ARGUMENT',
      400,
      'limit: expected an integer',
    ]);
  });

  it('lists every code of kit with its status, sorted', () => {
    const codes = listErrorCodes(KIT_ERRORS);
    expect(codes.map((c) => c.code)).toEqual([...codes.map((c) => c.code)].sort());
    expect(codes).toContainEqual({ code: 'INTERNAL', status: 500 });
    expect(codes).toContainEqual({ code: 'UNAVAILABLE', status: 503 });
  });

  it('refuses one code claimed by two classes, naming both statuses', () => {
    expect(() => listErrorCodes(KIT_ERRORS, [TeapotError])).toThrow(
      'NOT_FOUND: defined by NotFoundError (404) and TeapotError (418)',
    );
  });

  it('refuses a subclass that answers with its parent code', () => {
    expect(() => listErrorCodes([LooseNotFoundError])).toThrow(
      'LooseNotFoundError: sets no code of its own (answers as NotFoundError)',
    );
  });
});
