import { childPath, indexPath } from './field-errors.js';
import { isJsonObject, type JsonObject, type JsonSchemaProps, type KubeObject } from './types.js';

/**
 * Structural-schema pruning, null dropping and defaulting, in the order apiextensions-apiserver
 * applies them to a decoded custom resource.
 */

const OBJECT_META_FIELDS = new Set([
  'name',
  'generateName',
  'namespace',
  'selfLink',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'annotations',
  'ownerReferences',
  'finalizers',
  'managedFields',
]);

const ROOT_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

/** Drops undeclared fields in place; returns their paths (`spec.foo`) for field validation. */
export function pruneUnknownFields(obj: KubeObject, schema: JsonSchemaProps): string[] {
  const unknown: string[] = [];
  for (const key of Object.keys(obj.metadata)) {
    if (!OBJECT_META_FIELDS.has(key)) {
      unknown.push(`metadata.${key}`);
      Reflect.deleteProperty(obj.metadata, key);
    }
  }
  pruneObject(obj, schema, '', ROOT_FIELDS, unknown);
  return unknown;
}

function prune(value: unknown, schema: JsonSchemaProps | undefined, path: string, unknown: string[]): void {
  if (!schema) return;
  if (Array.isArray(value)) {
    value.forEach((item, i) => prune(item, schema.items, indexPath(path, i), unknown));
    return;
  }
  if (!isJsonObject(value)) return;
  const keep = schema['x-kubernetes-embedded-resource'] ? ROOT_FIELDS : undefined;
  pruneObject(value, schema, path, keep, unknown);
}

function pruneObject(
  value: JsonObject,
  schema: JsonSchemaProps,
  path: string,
  keep: Set<string> | undefined,
  unknown: string[],
): void {
  const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true;
  const additional = schema.additionalProperties;
  for (const key of Object.keys(value)) {
    if (keep?.has(key)) continue;
    const fieldPath = childPath(path, key);
    const declared = schema.properties?.[key];
    if (declared) prune(value[key], declared, fieldPath, unknown);
    else if (isJsonObject(additional)) prune(value[key], additional, fieldPath, unknown);
    else if (!preserve && additional !== true) {
      unknown.push(fieldPath);
      Reflect.deleteProperty(value, key);
    }
  }
}

/** Applies `default:` values and drops nulls of non-nullable fields without defaults, in place. */
export function applyDefaults(obj: KubeObject, schema: JsonSchemaProps): void {
  defaultObject(obj, schema, ROOT_FIELDS);
}

function applyDefaultsTo(value: unknown, schema: JsonSchemaProps | undefined): void {
  if (!schema) return;
  if (Array.isArray(value)) {
    for (const item of value) applyDefaultsTo(item, schema.items);
    return;
  }
  if (isJsonObject(value)) defaultObject(value, schema, undefined);
}

function defaultObject(value: JsonObject, schema: JsonSchemaProps, skip: Set<string> | undefined): void {
  for (const [key, prop] of Object.entries(schema.properties ?? {})) {
    if (skip?.has(key)) continue;
    const present = Object.hasOwn(value, key);
    if (present && value[key] === null && !prop.nullable) {
      if (prop.default === undefined) Reflect.deleteProperty(value, key);
      else value[key] = structuredClone(prop.default);
    } else if (!present && prop.default !== undefined) {
      value[key] = structuredClone(prop.default);
    }
    if (Object.hasOwn(value, key)) applyDefaultsTo(value[key], prop);
  }
  const additional = schema.additionalProperties;
  if (isJsonObject(additional)) {
    for (const key of Object.keys(value)) {
      if (!skip?.has(key) && !schema.properties?.[key]) applyDefaultsTo(value[key], additional);
    }
  }
}
