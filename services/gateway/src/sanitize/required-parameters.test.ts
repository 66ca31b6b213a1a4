import { PortcullisError } from '@portcullis/kit';
import { describe, expect, it } from 'vitest';
import { MissingParametersError, ParameterSpecError } from '../errors.js';
import { checkAndSanitizeRequiredParameters, parseParameterSpecs } from './required-parameters.js';
import { SANITIZERS } from './sanitizers.js';

/** The error `fn` throws, for asserting its fields. */
function thrownBy(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e: unknown) {
    return e;
  }
  throw new Error('expected a throw');
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

describe('parseParameterSpecs', () => {
  it('defaults to text and resolves sanitizer names in any case, as PHP method names', () => {
    const specs = parseParameterSpecs(['message', 'id|int', 'site|HTTPURL', 'when|Date']);
    expect(specs.map(({ spec, name, sanitizer }) => ({ spec, name, sanitizer }))).toEqual([
      { spec: 'message', name: 'message', sanitizer: 'text' },
      { spec: 'id|int', name: 'id', sanitizer: 'int' },
      { spec: 'site|HTTPURL', name: 'site', sanitizer: 'httpUrl' },
      { spec: 'when|Date', name: 'when', sanitizer: 'date' },
    ]);
    expect(specs[1]!.sanitize).toBe(SANITIZERS.int);
    expect(Object.isFrozen(specs[0])).toBe(true);
  });

  it('accepts no specs', () => {
    expect(parseParameterSpecs([])).toEqual([]);
  });

  it('lists every unknown sanitizer once, with RestApi wording', () => {
    const err = thrownBy(() => parseParameterSpecs(['a|foo', 'b|int', 'c|bar', 'd|foo', 'e|text20']));
    expect(err).toBeInstanceOf(ParameterSpecError);
    expect(err).toBeInstanceOf(PortcullisError);
    expect(err).toMatchObject({
      name: 'ParameterSpecError',
      code: 'PARAMETER_SPEC_INVALID',
      status: 400,
      unknownSanitizers: ['foo', 'bar', 'text20'],
      message:
        "Sanitizer: 'foo' is no valid sanitizer Sanitizer: 'bar' is no valid sanitizer " +
        "Sanitizer: 'text20' is no valid sanitizer",
    });
  });

  it.each(['constructor', 'toString', '__proto__', 'hasOwnProperty', ''])(
    "refuses the inherited or empty name '%s' as a sanitizer",
    (sanitizer) => {
      expect(() => parseParameterSpecs([`id|${sanitizer}`])).toThrow(
        new ParameterSpecError([`Sanitizer: '${sanitizer}' is no valid sanitizer`], [sanitizer]),
      );
    },
  );

  it('reports bad syntax and repeated parameters with the unknown sanitizers, in spec order', () => {
    const err = thrownBy(() =>
      parseParameterSpecs(['', '|int', 'a|int|text', 'first name', 'id|int', 'id|text', 'x|nope']),
    );
    expect(err).toMatchObject({
      problems: [
        "Parameter spec: '' is not 'name' or 'name|sanitizer'",
        "Parameter spec: '|int' is not 'name' or 'name|sanitizer'",
        "Parameter spec: 'a|int|text' is not 'name' or 'name|sanitizer'",
        "Parameter spec: 'first name' is not 'name' or 'name|sanitizer'",
        "Parameter spec: 'id|text' repeats parameter 'id'",
        "Sanitizer: 'nope' is no valid sanitizer",
      ],
      unknownSanitizers: ['nope'],
    });
  });
});

describe('checkAndSanitizeRequiredParameters', () => {
  it('returns the data with every named parameter sanitized and the others as they were', () => {
    const data = { id: '12abc', message: '  <b>hi</b>\nthere ', extra: '<keep>', userId: 40 };
    expect(checkAndSanitizeRequiredParameters(data, ['id|int', 'message'])).toStrictEqual({
      id: 12,
      message: 'hi there',
      extra: '<keep>',
      userId: 40,
    });
  });

  it('takes specs parsed at route load', () => {
    const specs = parseParameterSpecs(['id|int', 'tags|intArray']);
    expect(checkAndSanitizeRequiredParameters({ id: '7', tags: '1,2' }, specs)).toStrictEqual({
      id: 7,
      tags: [1, 2],
    });
  });

  it("counts '' and '0' as present", () => {
    expect(
      checkAndSanitizeRequiredParameters({ a: '', b: '0', c: 0, d: false }, [
        'a',
        'b|int',
        'c|text',
        'd|bool',
      ]),
    ).toStrictEqual({ a: '', b: 0, c: '0', d: false });
  });

  it('names the one missing parameter with the whole spec, as RestApi did', () => {
    const err = thrownBy(() => checkAndSanitizeRequiredParameters({ id: 1 }, ['id|int', 'message|text']));
    expect(err).toBeInstanceOf(MissingParametersError);
    expect(err).toBeInstanceOf(PortcullisError);
    expect(err).toMatchObject({
      name: 'MissingParametersError',
      code: 'MISSING_REQUIRED_PARAMETER',
      status: 400,
      missing: ['message'],
      message: "Required parameter: 'message|text' missing!",
    });
  });

  it('names every missing parameter, absent or null, in spec order', () => {
    const err = thrownBy(() =>
      checkAndSanitizeRequiredParameters({ b: null, c: 'here', d: undefined }, [
        'a',
        'b|int',
        'c',
        'd|email',
      ]),
    );
    expect(err).toMatchObject({
      missing: ['a', 'b', 'd'],
      message:
        "Required parameter: 'a' missing! Required parameter: 'b|int' missing! " +
        "Required parameter: 'd|email' missing!",
    });
  });

  it('does not count inherited properties as present', () => {
    const data = Object.create({ id: 1 }) as Record<string, unknown>;
    expect(() => checkAndSanitizeRequiredParameters(data, ['id|int'])).toThrow(
      "Required parameter: 'id|int' missing!",
    );
    expect(() => checkAndSanitizeRequiredParameters({}, ['toString'])).toThrow(MissingParametersError);
  });

  it('keeps a parameter named __proto__ an own property', () => {
    const data = JSON.parse('{"__proto__": " <i>x</i> "}') as Record<string, unknown>;
    const out = checkAndSanitizeRequiredParameters(data, ['__proto__']);
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(out, '__proto__')?.value).toBe('x');
  });

  it('does not modify its input', () => {
    const data = deepFreeze({ id: ' 5 ', list: ['1', '2'], nested: { a: '<b>' }, gone: null });
    const before = structuredClone(data);
    const out = checkAndSanitizeRequiredParameters(data, ['id|int', 'list|intArray', 'nested|array']);
    expect(data).toStrictEqual(before);
    expect(out).not.toBe(data);
    expect(out).toStrictEqual({ id: 5, list: [1, 2], nested: ['<b>'], gone: null });
  });

  it('checks text specs first: an unknown sanitizer is a ParameterSpecError with RestApi wording', () => {
    expect(() => checkAndSanitizeRequiredParameters({}, ['id|foo'])).toThrow(
      new ParameterSpecError(["Sanitizer: 'foo' is no valid sanitizer"], ['foo']),
    );
  });
});
