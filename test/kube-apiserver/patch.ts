import jsonPatch from 'fast-json-patch';
import { ApiError, badRequest, unsupportedMediaType } from './errors.js';
import { isJsonObject, type JsonObject } from './types.js';

/**
 * The three patch types: RFC 7386 merge patch, RFC 6902 JSON patch, and (built-ins only) a strategic
 * merge patch that knows the merge keys of the fields our built-in kinds have, not the whole scheme.
 */

export type PatchType = 'json' | 'merge' | 'strategic';

export const JSON_PATCH = 'application/json-patch+json';
export const MERGE_PATCH = 'application/merge-patch+json';
export const STRATEGIC_MERGE_PATCH = 'application/strategic-merge-patch+json';
export const APPLY_PATCH = 'application/apply-patch+yaml';

/** Maps the request's Content-Type to a patch type; 415 for types the resource does not accept. */
export function patchTypeOf(contentType: string | undefined, isCustom: boolean): PatchType {
  const media = (contentType ?? '').split(';')[0]?.trim();
  const accepted = isCustom ? [JSON_PATCH, MERGE_PATCH] : [JSON_PATCH, MERGE_PATCH, STRATEGIC_MERGE_PATCH];
  if (media === JSON_PATCH) return 'json';
  if (media === MERGE_PATCH) return 'merge';
  if (media === STRATEGIC_MERGE_PATCH && !isCustom) return 'strategic';
  throw unsupportedMediaType(accepted);
}

export function applyPatch(type: PatchType, target: JsonObject, body: string): JsonObject {
  let patch: unknown;
  try {
    patch = JSON.parse(body);
  } catch (e: unknown) {
    throw badRequest(e instanceof Error ? e.message : String(e));
  }
  switch (type) {
    case 'json':
      return applyJsonPatch(target, patch);
    case 'merge':
      if (!isJsonObject(patch))
        throw badRequest("couldn't get version/kind; json parse error: the patch is not a JSON object");
      return applyMergePatch(target, patch) as JsonObject;
    case 'strategic':
      if (!isJsonObject(patch)) throw badRequest('the patch is not a JSON object');
      return strategicMerge(target, patch, '');
    default: {
      const _exhaustive: never = type;
      return _exhaustive;
    }
  }
}

function applyJsonPatch(target: JsonObject, patch: unknown): JsonObject {
  if (!Array.isArray(patch))
    throw badRequest('json: cannot unmarshal object into Go value of type jsonpatch.Patch');
  try {
    const result = jsonPatch.applyPatch(structuredClone(target), patch as jsonPatch.Operation[], true, false);
    return result.newDocument;
  } catch (e: unknown) {
    if (e instanceof jsonPatch.JsonPatchError && e.name === 'OPERATION_OP_INVALID')
      throw badRequest(e.message);
    // As the real server: a patch that does not apply is a 422 without details.
    throw new ApiError(422, 'Invalid', 'the server rejected our request due to an error in our request', {});
  }
}

export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isJsonObject(patch)) return structuredClone(patch);
  const result: JsonObject = isJsonObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) Reflect.deleteProperty(result, key);
    else result[key] = applyMergePatch(result[key], value);
  }
  return result;
}

const PRIMITIVE_MERGE = Symbol('primitive');

/** `patchMergeKey`s of the list fields the built-in kinds here carry; other lists are replaced. */
const MERGE_KEYS: Record<string, string | typeof PRIMITIVE_MERGE> = {
  'metadata.finalizers': PRIMITIVE_MERGE,
  'metadata.ownerReferences': 'uid',
  'spec.ports': 'port',
};

const DIRECTIVE_PREFIXES = ['$setElementOrder/', '$deleteFromPrimitiveList/', '$retainKeys', '$patch'];

function strategicMerge(original: JsonObject, patch: JsonObject, path: string): JsonObject {
  if (patch['$patch'] === 'replace') return withoutDirectives(patch);
  let result: JsonObject = { ...original };
  const retain = patch['$retainKeys'];
  if (Array.isArray(retain)) {
    const keep: unknown[] = retain;
    result = Object.fromEntries(Object.entries(result).filter(([k]) => keep.includes(k)));
  }
  for (const [key, value] of Object.entries(patch)) {
    if (DIRECTIVE_PREFIXES.some((p) => key.startsWith(p))) continue;
    const fieldPath = path ? `${path}.${key}` : key;
    if (value === null || (isJsonObject(value) && value['$patch'] === 'delete'))
      Reflect.deleteProperty(result, key);
    else if (isJsonObject(value)) {
      const current = result[key];
      result[key] = strategicMerge(isJsonObject(current) ? current : {}, value, fieldPath);
    } else if (Array.isArray(value)) {
      const order = patch[`$setElementOrder/${key}`];
      const removals = patch[`$deleteFromPrimitiveList/${key}`];
      result[key] = mergeList(result[key], value, { fieldPath, order, removals });
    } else result[key] = value;
  }
  for (const [key, value] of Object.entries(patch)) {
    if (!key.startsWith('$deleteFromPrimitiveList/') || !Array.isArray(value)) continue;
    const field = key.slice('$deleteFromPrimitiveList/'.length);
    const current = result[field];
    if (Array.isArray(current)) {
      const drop: unknown[] = value;
      result[field] = (current as unknown[]).filter((v) => !drop.includes(v));
    }
  }
  return result;
}

function withoutDirectives(value: JsonObject): JsonObject {
  return Object.fromEntries(
    Object.entries(value).filter(([k]) => !DIRECTIVE_PREFIXES.some((p) => k.startsWith(p))),
  );
}

interface ListContext {
  fieldPath: string;
  order: unknown;
  removals: unknown;
}

function mergeList(current: unknown, patch: unknown[], ctx: ListContext): unknown[] {
  const mergeKey = MERGE_KEYS[ctx.fieldPath];
  const existing: unknown[] = Array.isArray(current) ? current : [];
  if (mergeKey === undefined) return patch.map((v) => (isJsonObject(v) ? withoutDirectives(v) : v));
  if (mergeKey === PRIMITIVE_MERGE) {
    const removals: unknown[] = Array.isArray(ctx.removals) ? ctx.removals : [];
    const merged = [...existing, ...patch.filter((v) => !existing.includes(v))].filter(
      (v) => !removals.includes(v),
    );
    return Array.isArray(ctx.order) ? sortByOrder(merged, ctx.order, (v) => v) : merged;
  }
  const keyOf = (item: unknown): unknown => (isJsonObject(item) ? item[mergeKey] : undefined);
  let merged = [...existing];
  for (const item of patch) {
    if (!isJsonObject(item)) continue;
    const index = merged.findIndex((m) => keyOf(m) === item[mergeKey]);
    if (item['$patch'] === 'delete') {
      if (index !== -1) merged = merged.filter((_, i) => i !== index);
    } else if (index === -1) merged.push(withoutDirectives(item));
    else {
      const base = merged[index];
      merged[index] = strategicMerge(isJsonObject(base) ? base : {}, item, `${ctx.fieldPath}[]`);
    }
  }
  return Array.isArray(ctx.order) ? sortByOrder(merged, ctx.order.map(keyOf), keyOf) : merged;
}

function sortByOrder(items: unknown[], order: unknown[], keyOf: (item: unknown) => unknown): unknown[] {
  const rank = (item: unknown): number => {
    const i = order.indexOf(keyOf(item));
    return i === -1 ? order.length : i;
  };
  return [...items].sort((a, b) => rank(a) - rank(b));
}
