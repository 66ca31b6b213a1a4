import {
  childPath,
  duplicate,
  formatGoFloat,
  indexPath,
  invalid,
  notSupported,
  required,
  tooLong,
  tooMany,
  typeInvalid,
} from './field-errors.js';
import { isJsonObject, type FieldError, type JsonSchemaProps, type KubeObject } from './types.js';

/**
 * OpenAPI v3 validation of a custom resource with kube-openapi's messages, mapped to field errors
 * as apiextensions-apiserver's `kubeOpenAPIResultToFieldErrors` does, followed by the
 * `x-kubernetes-list-type` set/map uniqueness checks.
 */

const SKIPPED_ROOT_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

export function validateAgainstSchema(obj: KubeObject, schema: JsonSchemaProps): FieldError[] {
  const errors: FieldError[] = [];
  const listErrors: FieldError[] = [];
  validateObject(obj, schema, '', { errors, listErrors });
  return [...errors, ...listErrors];
}

interface Sink {
  errors: FieldError[];
  listErrors: FieldError[];
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function validateValue(value: unknown, schema: JsonSchemaProps, path: string, sink: Sink): void {
  const { errors } = sink;
  const actual = jsonType(value);
  if (value === null) {
    if (!schema.nullable && (schema.type || schema['x-kubernetes-int-or-string'])) {
      errors.push(
        typeInvalid(path, 'null', `${path} in body must be of type ${expectedType(schema)}: "null"`),
      );
    }
    return;
  }
  if (!isTypeAllowed(schema, actual)) {
    errors.push(
      typeInvalid(path, actual, `${path} in body must be of type ${expectedType(schema)}: "${actual}"`),
    );
    return;
  }
  if (schema.enum && !schema.enum.some((allowed) => deepEqual(allowed, value))) {
    const allowed = schema.enum.map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
    errors.push(notSupported(path, value, allowed));
  }
  if (typeof value === 'string') validateString(value, schema, path, errors);
  else if (typeof value === 'number') validateNumber(value, schema, path, errors);
  else if (Array.isArray(value)) validateArray(value, schema, path, sink);
  else if (isJsonObject(value)) validateObject(value, schema, path, sink);
}

function expectedType(schema: JsonSchemaProps): string {
  return schema['x-kubernetes-int-or-string'] ? 'integer,string' : (schema.type ?? '');
}

function isTypeAllowed(schema: JsonSchemaProps, actual: string): boolean {
  if (schema['x-kubernetes-int-or-string']) return actual === 'integer' || actual === 'string';
  if (!schema.type) return true;
  if (schema.type === 'number') return actual === 'number' || actual === 'integer';
  return schema.type === actual;
}

function validateString(value: string, schema: JsonSchemaProps, path: string, errors: FieldError[]): void {
  const length = [...value].length;
  if (schema.maxLength !== undefined && length > schema.maxLength)
    errors.push(tooLong(path, schema.maxLength));
  if (schema.minLength !== undefined && length < schema.minLength) {
    errors.push(invalid(path, value, `${path} in body should be at least ${schema.minLength} chars long`));
  }
  if (schema.pattern !== undefined && !compilePattern(schema.pattern).test(value)) {
    errors.push(invalid(path, value, `${path} in body should match '${schema.pattern}'`));
  }
  if (schema.format && !isValidFormat(schema.format, value)) {
    errors.push(typeInvalid(path, value, `${path} in body must be of type ${schema.format}: "${value}"`));
  }
}

const FORMATS: Record<string, RegExp> = {
  'date-time': /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/,
  datetime: /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/,
  date: /^\d{4}-\d{2}-\d{2}$/,
  uuid: /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i,
  byte: /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/,
  ipv4: /^((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/,
  hostname:
    /^(?=.{1,253}$)[A-Za-z0-9]([-A-Za-z0-9]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([-A-Za-z0-9]{0,61}[A-Za-z0-9])?)*$/,
  email: /^[^@\s]+@[^@\s]+$/,
};

const patterns = new Map<string, RegExp>();

function compilePattern(pattern: string): RegExp {
  let compiled = patterns.get(pattern);
  if (!compiled) {
    compiled = new RegExp(pattern);
    patterns.set(pattern, compiled);
  }
  return compiled;
}

function isValidFormat(format: string, value: string): boolean {
  const pattern = FORMATS[format];
  return pattern ? pattern.test(value) : true;
}

function formatBound(bound: number, value: number): string {
  return Number.isInteger(bound) && Number.isInteger(value) ? String(bound) : formatGoFloat(bound);
}

function validateNumber(value: number, schema: JsonSchemaProps, path: string, errors: FieldError[]): void {
  if (schema.multipleOf !== undefined && !Number.isInteger(value / schema.multipleOf)) {
    const factor = formatGoFloat(schema.multipleOf);
    errors.push(invalid(path, value, `${path} in body should be a multiple of ${factor}`));
  }
  if (schema.maximum !== undefined) {
    const exclusive = schema.exclusiveMaximum === true;
    if (exclusive ? value >= schema.maximum : value > schema.maximum) {
      const words = exclusive ? 'less than' : 'less than or equal to';
      const bound = formatBound(schema.maximum, value);
      errors.push(invalid(path, value, `${path} in body should be ${words} ${bound}`));
    }
  }
  if (schema.minimum !== undefined) {
    const exclusive = schema.exclusiveMinimum === true;
    if (exclusive ? value <= schema.minimum : value < schema.minimum) {
      const words = exclusive ? 'greater than' : 'greater than or equal to';
      const bound = formatBound(schema.minimum, value);
      errors.push(invalid(path, value, `${path} in body should be ${words} ${bound}`));
    }
  }
}

function validateArray(value: unknown[], schema: JsonSchemaProps, path: string, sink: Sink): void {
  const { errors } = sink;
  if (schema.items) {
    const items = schema.items;
    value.forEach((item, i) => validateValue(item, items, indexPath(path, i), sink));
  }
  if (schema.minItems !== undefined && value.length < schema.minItems) {
    errors.push(invalid(path, value.length, `${path} in body should have at least ${schema.minItems} items`));
  }
  if (schema.maxItems !== undefined && value.length > schema.maxItems) {
    errors.push(tooMany(path, value.length, schema.maxItems));
  }
  if (schema.uniqueItems && value.some((a, i) => value.findIndex((b) => deepEqual(a, b)) !== i)) {
    errors.push(invalid(path, '', `${path} in body shouldn't contain duplicates`));
  }
  validateListType(value, schema, path, sink.listErrors);
}

function validateListType(
  value: unknown[],
  schema: JsonSchemaProps,
  path: string,
  errors: FieldError[],
): void {
  const listType = schema['x-kubernetes-list-type'];
  if (listType === 'set') {
    value.forEach((item, i) => {
      if (value.findIndex((other) => deepEqual(other, item)) !== i)
        errors.push(duplicate(indexPath(path, i), item));
    });
  } else if (listType === 'map') {
    const keys = schema['x-kubernetes-list-map-keys'] ?? [];
    const seen: Record<string, unknown>[] = [];
    value.forEach((item, i) => {
      if (!isJsonObject(item)) return;
      const key: Record<string, unknown> = {};
      for (const k of keys) if (item[k] !== undefined) key[k] = item[k];
      if (seen.some((s) => deepEqual(s, key))) errors.push(duplicate(indexPath(path, i), key));
      else seen.push(key);
    });
  }
}

function validateObject(
  value: Record<string, unknown>,
  schema: JsonSchemaProps,
  path: string,
  sink: Sink,
): void {
  const { errors } = sink;
  const root = path === '';
  const count = Object.keys(value).length;
  if (schema.minProperties !== undefined && count < schema.minProperties) {
    errors.push(
      invalid(path, count, `${path} in body should have at least ${schema.minProperties} properties`),
    );
  }
  if (schema.maxProperties !== undefined && count > schema.maxProperties) {
    errors.push(tooMany(path, count, schema.maxProperties));
  }
  for (const [key, prop] of Object.entries(schema.properties ?? {})) {
    if (root && SKIPPED_ROOT_FIELDS.has(key)) continue;
    if (Object.hasOwn(value, key)) validateValue(value[key], prop, childPath(path, key), sink);
  }
  const additional = schema.additionalProperties;
  if (isJsonObject(additional)) {
    for (const [key, item] of Object.entries(value)) {
      if (!schema.properties?.[key]) validateValue(item, additional, `${path}.${key}`, sink);
    }
  }
  for (const key of schema.required ?? []) {
    if (!Object.hasOwn(value, key)) errors.push(required(childPath(path, key)));
  }
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((item, i) => deepEqual(item, b[i]));
  }
  if (isJsonObject(a) && isJsonObject(b)) {
    const keys = Object.keys(a);
    return (
      keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]))
    );
  }
  return false;
}
