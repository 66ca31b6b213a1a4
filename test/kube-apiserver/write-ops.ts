import { randomInt, randomUUID } from 'node:crypto';
import { CRD_STORAGE_KEY, NAMESPACE_STORAGE_KEY } from './builtins.js';
import { hasCelRules, validateCelRules } from './cel-rules.js';
import {
  checkNamespaceAdmits,
  getCurrent,
  toServed,
  toStored,
  type ApiContext,
  type Target,
  type WriteOptions,
} from './context.js';
import { reapNamespace, removeObject } from './delete-ops.js';
import {
  alreadyExists,
  ApiError,
  badRequest,
  cannotDecode,
  conflict,
  invalid as invalidError,
  MODIFIED_CONFLICT,
} from './errors.js';
import { invalid, ROOT_FIELD } from './field-errors.js';
import { formatTime } from './micro-time.js';
import { missingResourceVersion, validateObjectMeta, validateObjectMetaUpdate } from './object-meta.js';
import { applyPatch, type PatchType } from './patch.js';
import { deepEqual, validateAgainstSchema } from './schema-validation.js';
import { applyDefaults, pruneUnknownFields } from './structural.js';
import { isJsonObject, type FieldError, type KubeObject, type ResourceDef } from './types.js';

/** Create, update and patch with the real registry's strategy: status handling, generation, validation. */

const BLOCKING = new Set([
  'FieldValueNotSupported',
  'FieldValueRequired',
  'FieldValueTooLong',
  'FieldValueTooMany',
  'FieldValueTypeInvalid',
]);
const NAME_SUFFIX_CHARS = 'bcdfghjklmnpqrstvwxz2456789';

export function createObject(ctx: ApiContext, target: Target, body: unknown, opts: WriteOptions): KubeObject {
  const { def } = target;
  const obj = decode(def, body);
  const meta = obj.metadata;
  if (meta.resourceVersion) throw badRequest('resourceVersion should not be set on objects to be created');
  placeInNamespace(def, obj, target.namespace);
  if (!meta.name && meta.generateName) meta.name = generateName(meta.generateName);
  const name = meta.name ?? '';
  checkNamespaceAdmits(ctx, target, name);
  if (
    def.isCustom &&
    ctx.store.get(CRD_STORAGE_KEY, '', `${def.plural}.${def.group}`)?.metadata.deletionTimestamp
  ) {
    throw new ApiError(
      405,
      'MethodNotAllowed',
      'create not allowed while custom resource definition is terminating',
    );
  }
  normalizeCustom(def, obj, opts);
  if (def.hasStatus) delete obj['status'];
  if (def.hasGeneration) meta.generation = 1;
  else delete meta.generation;
  meta.uid = randomUUID();
  meta.creationTimestamp = formatTime(ctx.now());
  for (const key of ['deletionTimestamp', 'deletionGracePeriodSeconds', 'managedFields', 'selfLink']) {
    Reflect.deleteProperty(meta, key);
  }
  def.hooks.prepare?.(obj, undefined);
  const errors = [
    ...validateObjectMeta(obj, def.nameRule, def.namespaced),
    ...validateContent(def, obj, undefined),
  ];
  if (errors.length) throw invalidError(def, name, errors);
  if (ctx.store.get(def.storageKey, meta.namespace ?? '', name)) throw alreadyExists(def, name);
  if (opts.dryRun) return obj;
  const stored = ctx.store.create(def.storageKey, toStored(def, obj));
  const served = toServed(def, stored);
  if (def.storageKey === CRD_STORAGE_KEY) ctx.registry.applyCrd(served);
  return served;
}

export function replaceObject(
  ctx: ApiContext,
  target: Target,
  body: unknown,
  opts: WriteOptions,
): KubeObject {
  const { def } = target;
  const current = getCurrent(ctx, target);
  const obj = decode(def, body);
  checkIdentity(target, obj);
  const rv = obj.metadata.resourceVersion;
  if (!rv) {
    if (def.requireResourceVersion) throw invalidError(def, target.name, [missingResourceVersion()]);
  } else if (rv !== current.metadata.resourceVersion) {
    throw conflict(def, target.name, MODIFIED_CONFLICT);
  }
  return commitUpdate(ctx, target, { candidate: obj, current }, opts);
}

export function patchObject(
  ctx: ApiContext,
  target: Target,
  patch: { type: PatchType; body: string },
  opts: WriteOptions,
): KubeObject {
  const { def } = target;
  const current = getCurrent(ctx, target);
  const obj = decode(def, applyPatch(patch.type, current, patch.body));
  checkIdentity(target, obj);
  const rv = obj.metadata.resourceVersion;
  if (rv && rv !== current.metadata.resourceVersion) throw conflict(def, target.name, MODIFIED_CONFLICT);
  return commitUpdate(ctx, target, { candidate: obj, current }, opts);
}

interface UpdatePair {
  candidate: KubeObject;
  current: KubeObject;
}

function commitUpdate(ctx: ApiContext, target: Target, pair: UpdatePair, opts: WriteOptions): KubeObject {
  const { def } = target;
  const { current } = pair;
  const next = target.subresource === 'status' ? withStatusOf(current, pair.candidate) : pair.candidate;
  if (target.subresource !== 'status' && def.hasStatus) copyField(current, next, 'status');
  normalizeCustom(def, next, opts);
  const meta = next.metadata;
  meta.name = current.metadata.name;
  if (def.namespaced) meta.namespace = current.metadata.namespace;
  else delete meta.namespace;
  meta.uid ||= current.metadata.uid;
  meta.resourceVersion = current.metadata.resourceVersion;
  for (const key of ['creationTimestamp', 'deletionTimestamp', 'deletionGracePeriodSeconds', 'generation']) {
    copyField(current.metadata, meta, key);
  }
  delete meta.managedFields;
  delete meta.selfLink;
  def.hooks.prepare?.(next, current);
  if (def.hasGeneration && !deepEqual(specOf(def, next), specOf(def, current))) {
    meta.generation = (current.metadata.generation ?? 0) + 1;
  }
  const errors = [
    ...validateObjectMeta(next, def.nameRule, def.namespaced),
    ...validateObjectMetaUpdate(next, current),
    ...validateContent(def, next, current),
  ];
  if (errors.length) throw invalidError(def, target.name, errors);
  if (deepEqual(next, current) || opts.dryRun) return next;
  const isNamespace = def.storageKey === NAMESPACE_STORAGE_KEY;
  if (meta.deletionTimestamp && !meta.finalizers?.length && !isNamespace) {
    // As the real store: the update becomes a delete and the caller gets the object it sent.
    removeObject(ctx, def, current);
    return next;
  }
  const stored = ctx.store.update(def.storageKey, toStored(def, next), toStored(def, current));
  const served = toServed(def, stored);
  if (def.storageKey === CRD_STORAGE_KEY) ctx.registry.applyCrd(served);
  if (isNamespace) reapNamespace(ctx, target.name);
  return served;
}

function withStatusOf(current: KubeObject, candidate: KubeObject): KubeObject {
  const next = structuredClone(current);
  copyField(candidate, next, 'status');
  return next;
}

function copyField(from: Record<string, unknown>, to: Record<string, unknown>, key: string): void {
  if (from[key] === undefined) Reflect.deleteProperty(to, key);
  else to[key] = structuredClone(from[key]);
}

/** What `generation` tracks: everything but metadata, and but status when it has its own endpoint. */
function specOf(def: ResourceDef, obj: KubeObject): Record<string, unknown> {
  const rest: Record<string, unknown> = { ...obj };
  delete rest['metadata'];
  if (def.hasStatus) delete rest['status'];
  return rest;
}

function decode(def: ResourceDef, body: unknown): KubeObject {
  if (!isJsonObject(body)) throw badRequest('the object provided is unrecognized: expected a JSON object');
  const apiVersion = def.group ? `${def.group}/${def.version}` : def.version;
  const sentVersion = body['apiVersion'] ?? apiVersion;
  if (sentVersion !== apiVersion) {
    throw badRequest(
      `the API version in the data (${JSON.stringify(sentVersion)}) does not match the expected API version (${apiVersion})`,
    );
  }
  const sentKind = body['kind'] ?? def.kind;
  if (sentKind !== def.kind) {
    throw badRequest(
      `the kind in the data (${JSON.stringify(sentKind)}) does not match the expected kind (${def.kind})`,
    );
  }
  const metadata = isJsonObject(body['metadata']) ? body['metadata'] : {};
  const obj: KubeObject = structuredClone({ ...body, apiVersion, kind: def.kind, metadata });
  const problem = checkMetadataTypes(obj) ?? def.hooks.checkDecode?.(obj);
  if (problem) throw cannotDecode(def, problem);
  return obj;
}

function checkMetadataTypes(obj: KubeObject): string | undefined {
  for (const field of ['labels', 'annotations'] as const) {
    const map: unknown = obj.metadata[field];
    if (map === undefined || map === null) continue;
    if (!isJsonObject(map) || Object.values(map).some((v) => typeof v !== 'string')) {
      return `json: cannot unmarshal into Go struct field ObjectMeta.metadata.${field} of type map[string]string`;
    }
  }
  const finalizers: unknown = obj.metadata.finalizers;
  if (finalizers !== undefined && finalizers !== null) {
    if (!Array.isArray(finalizers) || finalizers.some((f) => typeof f !== 'string')) {
      return 'json: cannot unmarshal into Go struct field ObjectMeta.metadata.finalizers of type []string';
    }
  }
  return undefined;
}

function placeInNamespace(def: ResourceDef, obj: KubeObject, namespace: string): void {
  if (!def.namespaced) {
    delete obj.metadata.namespace;
    return;
  }
  if (obj.metadata.namespace && obj.metadata.namespace !== namespace) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  obj.metadata.namespace = namespace;
}

function checkIdentity(target: Target, obj: KubeObject): void {
  if (obj.metadata.name !== target.name) {
    throw badRequest(
      `the name of the object (${obj.metadata.name ?? ''}) does not match the name on the URL (${target.name})`,
    );
  }
  placeInNamespace(target.def, obj, target.namespace);
}

function generateName(base: string): string {
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += NAME_SUFFIX_CHARS.charAt(randomInt(NAME_SUFFIX_CHARS.length));
  return `${base.slice(0, 58)}${suffix}`;
}

/** Pruning (with field validation) and defaulting of a custom resource, before any strategy runs. */
function normalizeCustom(def: ResourceDef, obj: KubeObject, opts: WriteOptions): void {
  if (!def.schema) return;
  const unknown = pruneUnknownFields(obj, def.schema);
  if (unknown.length && opts.fieldValidation === 'Strict') {
    throw cannotDecode(
      def,
      `strict decoding error: ${unknown.map((p) => `unknown field "${p}"`).join(', ')}`,
    );
  }
  if (opts.fieldValidation === 'Warn') opts.warnings.push(...unknown.map((p) => `unknown field "${p}"`));
  applyDefaults(obj, def.schema);
}

function validateContent(def: ResourceDef, obj: KubeObject, old: KubeObject | undefined): FieldError[] {
  const errors: FieldError[] = [];
  if (def.schema) {
    const schemaErrors = validateAgainstSchema(obj, def.schema);
    errors.push(...schemaErrors);
    if (hasCelRules(def.schema)) {
      if (schemaErrors.some((e) => BLOCKING.has(e.type))) {
        const detail =
          'some validation rules were not checked because the object was invalid; correct the existing errors to complete validation';
        errors.push(invalid(ROOT_FIELD, null, detail));
      } else {
        errors.push(...validateCelRules(obj, old, def.schema));
      }
    }
  }
  errors.push(...(def.hooks.validate?.(obj, old) ?? []));
  return errors;
}
