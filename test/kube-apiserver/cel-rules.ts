import { Environment } from '@marcbachmann/cel-js';
import { childPath, duplicate, forbidden, indexPath, invalid, required, ROOT_FIELD } from './field-errors.js';
import { deepEqual } from './schema-validation.js';
import { isJsonObject, type FieldError, type JsonSchemaProps, type ValidationRule } from './types.js';

/**
 * `x-kubernetes-validations` evaluated with @marcbachmann/cel-js, reporting failures as
 * apiextensions-apiserver 1.32 does: `spec: Invalid value: "object": <message>`.
 */

type Program = (context: Record<string, unknown>) => unknown;

const env = new Environment({ unlistedVariablesAreDyn: true, enableOptionalTypes: true })
  .registerFunction({
    name: 'isSorted',
    receiverType: 'list',
    returnType: 'bool',
    params: [],
    handler: (list: unknown[]) => list.every((x, i) => i === 0 || compare(list[i - 1], x) <= 0),
  })
  .registerFunction('string.replace(string, string): string', (s: string, from: string, to: string) =>
    s.split(from).join(to),
  );

function compare(a: unknown, b: unknown): number {
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  return Number(a) - Number(b);
}

const programs = new Map<string, Program>();

function compile(expression: string): Program {
  let program = programs.get(expression);
  if (!program) {
    program = env.parse(expression) as Program;
    programs.set(expression, program);
  }
  return program;
}

/** Compile errors of every rule in the schema, for rejecting a CRD as the real server does. */
export function findCelCompileErrors(schema: JsonSchemaProps, path = 'openAPIV3Schema'): string[] {
  const errors: string[] = [];
  for (const rule of schema['x-kubernetes-validations'] ?? []) {
    for (const expression of [rule.rule, rule.messageExpression]) {
      if (expression === undefined) continue;
      try {
        compile(expression);
      } catch (e: unknown) {
        errors.push(`${path}.x-kubernetes-validations: compilation failed: ${firstLine(e)}: ${expression}`);
      }
    }
  }
  for (const [key, prop] of Object.entries(schema.properties ?? {})) {
    errors.push(...findCelCompileErrors(prop, `${path}.properties[${key}]`));
  }
  if (schema.items) errors.push(...findCelCompileErrors(schema.items, `${path}.items`));
  if (isJsonObject(schema.additionalProperties)) {
    errors.push(...findCelCompileErrors(schema.additionalProperties, `${path}.additionalProperties`));
  }
  return errors;
}

export function hasCelRules(schema: JsonSchemaProps): boolean {
  if (schema['x-kubernetes-validations']?.length) return true;
  if (Object.values(schema.properties ?? {}).some(hasCelRules)) return true;
  if (schema.items && hasCelRules(schema.items)) return true;
  return isJsonObject(schema.additionalProperties) && hasCelRules(schema.additionalProperties);
}

/**
 * Evaluates every rule against `obj` (and `old` for transition rules). Errors on values equal to
 * their old value are dropped, as CRD validation ratcheting (on by default since 1.30) does.
 */
export function validateCelRules(obj: unknown, old: unknown, schema: JsonSchemaProps): FieldError[] {
  const errors: FieldError[] = [];
  walk(obj, old, schema, ROOT_FIELD, errors);
  return errors;
}

function walk(
  value: unknown,
  old: unknown,
  schema: JsonSchemaProps,
  path: string,
  errors: FieldError[],
): void {
  if (value === null || value === undefined) return;
  for (const rule of schema['x-kubernetes-validations'] ?? []) {
    const error = evaluateRule(rule, { value, old, schema, path });
    if (error) errors.push(error);
  }
  if (Array.isArray(value)) {
    const items = schema.items;
    if (!items) return;
    const oldItems = Array.isArray(old) ? old : [];
    value.forEach((item, i) =>
      walk(item, correlate(item, oldItems, schema), items, indexPath(path, i), errors),
    );
  } else if (isJsonObject(value)) {
    const oldObject = isJsonObject(old) ? old : undefined;
    const additional = isJsonObject(schema.additionalProperties) ? schema.additionalProperties : undefined;
    for (const [key, child] of Object.entries(value)) {
      const childSchema = schema.properties?.[key] ?? additional;
      if (childSchema) walk(child, oldObject?.[key], childSchema, childPath(path, key), errors);
    }
  }
}

/** The old list item an item is compared with: by map keys, or by value for sets; none for atomic lists. */
function correlate(item: unknown, oldItems: unknown[], schema: JsonSchemaProps): unknown {
  const listType = schema['x-kubernetes-list-type'];
  if (listType === 'set') return oldItems.find((o) => deepEqual(o, item));
  if (listType !== 'map' || !isJsonObject(item)) return undefined;
  const keys = schema['x-kubernetes-list-map-keys'] ?? [];
  return oldItems.find((o) => isJsonObject(o) && keys.every((k) => deepEqual(o[k], item[k])));
}

interface Node {
  value: unknown;
  old: unknown;
  schema: JsonSchemaProps;
  path: string;
}

function evaluateRule(rule: ValidationRule, node: Node): FieldError | undefined {
  const usesOldSelf = /\boldSelf\b/.test(rule.rule);
  if (usesOldSelf && node.old === undefined) return undefined;
  if (!usesOldSelf && node.old !== undefined && deepEqual(node.value, node.old)) return undefined;
  const context: Record<string, unknown> = { self: toCel(node.value, node.schema) };
  if (node.old !== undefined) context['oldSelf'] = toCel(node.old, node.schema);
  const type = node.schema.type ?? '';
  let result: unknown;
  try {
    result = compile(rule.rule)(context);
  } catch (e: unknown) {
    return invalid(node.path, type, `${firstLine(e)} evaluating rule: ${ruleErrorString(rule)}`);
  }
  if (result === true) return undefined;
  const detail = evaluateMessage(rule, context) ?? defaultMessage(rule);
  const path = rule.fieldPath ? childPath(node.path, rule.fieldPath.replace(/^\./, '')) : node.path;
  switch (rule.reason) {
    case 'FieldValueForbidden':
      return forbidden(path, detail);
    case 'FieldValueRequired':
      return required(path, detail);
    case 'FieldValueDuplicate':
      return duplicate(path, type);
    case undefined:
    default:
      return invalid(path, type, detail);
  }
}

function evaluateMessage(rule: ValidationRule, context: Record<string, unknown>): string | undefined {
  if (!rule.messageExpression) return undefined;
  try {
    const message = compile(rule.messageExpression)(context);
    if (typeof message !== 'string') return undefined;
    const trimmed = message.trim();
    return trimmed && !trimmed.includes('\n') ? trimmed : undefined;
  } catch {
    return undefined;
  }
}

function defaultMessage(rule: ValidationRule): string {
  return rule.message ? rule.message.trim() : `failed rule: ${ruleErrorString(rule)}`;
}

function ruleErrorString(rule: ValidationRule): string {
  return rule.message ? rule.message.trim() : rule.rule.trim();
}

function firstLine(e: unknown): string {
  const text = e instanceof Error ? e.message : String(e);
  const line = text.split('\n')[0] ?? text;
  return line.charAt(0).toLowerCase() + line.slice(1);
}

/** JSON → CEL values: integers become `int` (bigint) where the schema says integer, as in Kubernetes. */
function toCel(value: unknown, schema: JsonSchemaProps | undefined): unknown {
  if (typeof value === 'number') {
    const isInt = schema?.type === 'integer' || schema?.['x-kubernetes-int-or-string'] || !schema?.type;
    return isInt && Number.isInteger(value) ? BigInt(value) : value;
  }
  if (Array.isArray(value)) return value.map((item) => toCel(item, schema?.items));
  if (isJsonObject(value)) {
    const additional = isJsonObject(schema?.additionalProperties) ? schema.additionalProperties : undefined;
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) {
      out[key] = toCel(child, schema?.properties?.[key] ?? additional);
    }
    return out;
  }
  return value;
}
