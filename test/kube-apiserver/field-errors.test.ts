import { describe, expect, it } from 'vitest';
import {
  aggregateText,
  formatGoFloat,
  goSharpV,
  invalid,
  notSupported,
  required,
  tooLong,
} from './field-errors.js';
import { humanDuration } from './human-duration.js';
import { checkMicroTime, normalizeMicroTime } from './micro-time.js';

describe('Go formatting', () => {
  it.each([
    [1, '1'],
    [0.5, '0.5'],
    [123456, '123456'],
    [1e6, '1e+06'],
    [1234567.5, '1.2345675e+06'],
    [0.00001, '1e-05'],
  ])('%%v of float64 %d is %s', (value, text) => {
    expect(formatGoFloat(value)).toBe(text);
  });

  it('prints decoded JSON as %#v', () => {
    expect(goSharpV({ port: 80, name: 'a' })).toBe('map[string]interface {}{"name":"a", "port":80}');
  });

  it('aggregates field errors like ErrorList.ToAggregate', () => {
    const one = [required('spec.domain')];
    expect(aggregateText(one)).toBe('spec.domain: Required value');
    const many = [
      notSupported('spec.unit', 'fortnight', ['second', 'minute']),
      tooLong('spec.name', 1),
      invalid('spec.n', 1.5, 'bad'),
    ];
    expect(aggregateText([...many, ...many])).toBe(
      '[spec.unit: Unsupported value: "fortnight": supported values: "second", "minute", spec.name: Too long: may not be more than 1 byte, spec.n: Invalid value: 1.5: bad]',
    );
  });
});

describe('MicroTime', () => {
  it('accepts exactly six fractional digits and renders UTC', () => {
    expect(checkMicroTime('2025-01-01T01:00:00.000001+01:00')).toBeUndefined();
    expect(normalizeMicroTime('2025-01-01T01:00:00.000001+01:00')).toBe('2025-01-01T00:00:00.000001Z');
  });

  it('fails like time.Parse otherwise', () => {
    expect(checkMicroTime('2025-01-01T00:00:00Z')).toBe(
      'parsing time "2025-01-01T00:00:00Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000"',
    );
    expect(checkMicroTime('2025-01-01T00:00:00.1234567Z')).toBe(
      'parsing time "2025-01-01T00:00:00.1234567Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "7Z" as "Z07:00"',
    );
  });
});

describe('humanDuration', () => {
  it.each([
    [59_000, '59s'],
    [119_000, '119s'],
    [150_000, '2m30s'],
    [3 * 3_600_000 + 60_000, '3h1m'],
    [30 * 3_600_000, '30h'],
    [50 * 3_600_000, '2d2h'],
  ])('%d ms → %s', (ms, text) => {
    expect(humanDuration(ms)).toBe(text);
  });
});
