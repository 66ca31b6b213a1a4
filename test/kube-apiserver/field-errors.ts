import { GoLiteral, OMIT_VALUE, type FieldError, type FieldErrorType } from './types.js';

/**
 * apimachinery's `field.Error` constructors and text, as of Kubernetes 1.32
 * (`staging/src/k8s.io/apimachinery/pkg/util/validation/field/errors.go`).
 */

const TYPE_TEXT: Record<FieldErrorType, string> = {
  FieldValueNotFound: 'Not found',
  FieldValueRequired: 'Required value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  InternalError: 'Internal error',
  FieldValueTypeInvalid: 'Invalid value',
};

export const ROOT_FIELD = '<nil>';

export function required(field: string, detail = ''): FieldError {
  return { type: 'FieldValueRequired', field, value: '', detail };
}

export function invalid(field: string, value: unknown, detail: string): FieldError {
  return { type: 'FieldValueInvalid', field, value, detail };
}

export function typeInvalid(field: string, value: unknown, detail: string): FieldError {
  return { type: 'FieldValueTypeInvalid', field, value, detail };
}

export function forbidden(field: string, detail: string): FieldError {
  return { type: 'FieldValueForbidden', field, value: '', detail };
}

export function duplicate(field: string, value: unknown): FieldError {
  return { type: 'FieldValueDuplicate', field, value, detail: '' };
}

export function notSupported(field: string, value: unknown, allowed: string[]): FieldError {
  const detail = allowed.length ? `supported values: ${allowed.map((v) => goQuote(v)).join(', ')}` : '';
  return { type: 'FieldValueNotSupported', field, value, detail };
}

export function tooLong(field: string, maxLength: number): FieldError {
  const unit = maxLength === 1 ? 'byte' : 'bytes';
  return { type: 'FieldValueTooLong', field, value: '', detail: `may not be more than ${maxLength} ${unit}` };
}

export function tooMany(field: string, actual: number, max: number): FieldError {
  return { type: 'FieldValueTooMany', field, value: actual, detail: `must have at most ${max} items` };
}

/** `field.Error.ErrorBody()`: the message without the field name. */
export function errorBody(e: FieldError): string {
  let s: string;
  switch (e.type) {
    case 'FieldValueRequired':
    case 'FieldValueForbidden':
    case 'FieldValueTooLong':
    case 'InternalError':
      s = TYPE_TEXT[e.type];
      break;
    case 'FieldValueNotFound':
    case 'FieldValueDuplicate':
    case 'FieldValueInvalid':
    case 'FieldValueNotSupported':
    case 'FieldValueTooMany':
    case 'FieldValueTypeInvalid':
      s = e.value === OMIT_VALUE ? TYPE_TEXT[e.type] : `${TYPE_TEXT[e.type]}: ${formatGoValue(e.value)}`;
  }
  return e.detail ? `${s}: ${e.detail}` : s;
}

export function errorText(e: FieldError): string {
  return `${e.field}: ${errorBody(e)}`;
}

/** `ErrorList.ToAggregate().Error()`: one message, or `[a, b]` with duplicates dropped. */
export function aggregateText(errors: FieldError[]): string {
  const texts = [...new Set(errors.map(errorText))];
  return texts.length === 1 ? (texts[0] ?? '') : `[${texts.join(', ')}]`;
}

/** How `ErrorBody` prints a bad value: `%q` for strings, `%v` for numbers and booleans, `"null"` for nil. */
export function formatGoValue(value: unknown): string {
  if (value instanceof GoLiteral) return value.text;
  if (value === null || value === undefined) return goQuote('null');
  if (typeof value === 'string') return goQuote(value);
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : formatGoFloat(value);
  if (typeof value === 'boolean') return String(value);
  return goSharpV(value);
}

/** Go's `%v` for a float64: shortest digits, exponent form below 1e-4 or from 1e+06. */
export function formatGoFloat(value: number): string {
  if (!Number.isFinite(value)) return value > 0 ? '+Inf' : value < 0 ? '-Inf' : 'NaN';
  if (value === 0) return '0';
  const [mantissa = '', exp = '0'] = value.toExponential().split('e');
  const exponent = Number(exp);
  if (exponent >= -4 && exponent < 6) return String(value);
  const digits = String(Math.abs(exponent)).padStart(2, '0');
  return `${mantissa}e${exponent < 0 ? '-' : '+'}${digits}`;
}

/** Go's `%q` for ASCII text; JSON escaping matches it for the characters CRs carry. */
export function goQuote(text: string): string {
  return JSON.stringify(text);
}

/** Go's `%#v` for decoded JSON (`map[string]interface {}{"k":"v"}`, `[]interface {}{…}`). */
export function goSharpV(value: unknown): string {
  if (typeof value === 'string') return goQuote(value);
  if (typeof value === 'number') return Number.isInteger(value) ? String(value) : formatGoFloat(value);
  if (typeof value === 'boolean') return String(value);
  if (value === null || value === undefined) return 'interface {}(nil)';
  if (Array.isArray(value)) return `[]interface {}{${value.map(goSharpV).join(', ')}}`;
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1));
  return `map[string]interface {}{${entries.map(([k, v]) => `${goQuote(k)}:${goSharpV(v)}`).join(', ')}}`;
}

/** `field.Path` rendering: `a.b`, `a[0]`, `a[key]`. */
export function childPath(parent: string, name: string): string {
  return parent === ROOT_FIELD || parent === '' ? name : `${parent}.${name}`;
}

export function indexPath(parent: string, index: number | string): string {
  return `${parent === ROOT_FIELD ? '' : parent}[${index}]`;
}
