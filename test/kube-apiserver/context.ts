import { ApiError, notFound } from './errors.js';
import type { ResourceRegistry } from './registry.js';
import type { ObjectStore } from './store.js';
import { NAMESPACE_STORAGE_KEY } from './builtins.js';
import { applyDefaults } from './structural.js';
import type { KubeObject, ResourceDef } from './types.js';

/** What every operation works on, and the conversions between served and stored forms. */

export interface ApiContext {
  store: ObjectStore;
  registry: ResourceRegistry;
  now: () => number;
}

/** One request's resource: `name` is absent for collections, `subresource` only for `/status`. */
export interface Target {
  def: ResourceDef;
  namespace: string;
  name: string;
  subresource: 'status' | undefined;
}

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

export interface WriteOptions {
  dryRun: boolean;
  fieldValidation: FieldValidation;
  /** Filled with `Warning` header texts (unknown fields under `Warn`). */
  warnings: string[];
}

/** Also applies CRD defaults, as the real server does on every read from storage. */
export function toServed(def: ResourceDef, stored: KubeObject): KubeObject {
  const converted = def.hooks.fromStorage ? def.hooks.fromStorage(stored) : stored;
  const obj = {
    ...converted,
    apiVersion: def.group ? `${def.group}/${def.version}` : def.version,
    kind: def.kind,
  };
  if (!def.schema) return obj;
  const defaulted = structuredClone(obj);
  applyDefaults(defaulted, def.schema);
  return defaulted;
}

export function toStored(def: ResourceDef, served: KubeObject): KubeObject {
  return def.hooks.toStorage ? def.hooks.toStorage(served) : served;
}

/** The current object in served form, or 404. */
export function getCurrent(ctx: ApiContext, target: Target): KubeObject {
  const stored = ctx.store.get(
    target.def.storageKey,
    target.def.namespaced ? target.namespace : '',
    target.name,
  );
  if (!stored) throw notFound(target.def, target.name);
  return toServed(target.def, stored);
}

const NAMESPACES = { plural: 'namespaces', group: '' };

/** NamespaceLifecycle admission: content goes only into namespaces that exist and are not terminating. */
export function checkNamespaceAdmits(ctx: ApiContext, target: Target, name: string): void {
  if (!target.def.namespaced) return;
  const ns = ctx.store.get(NAMESPACE_STORAGE_KEY, '', target.namespace);
  if (!ns) throw notFound(NAMESPACES, target.namespace);
  if (ns.metadata.deletionTimestamp) {
    const resource = target.def.group ? `${target.def.plural}.${target.def.group}` : target.def.plural;
    const message = `${resource} "${name}" is forbidden: unable to create new content in namespace ${target.namespace} because it is being terminated`;
    const details = {
      name,
      ...(target.def.group ? { group: target.def.group } : {}),
      kind: target.def.plural,
      causes: [
        {
          reason: 'NamespaceTerminating',
          message: `namespace ${target.namespace} is being terminated`,
          field: 'metadata.namespace',
        },
      ],
    };
    throw new ApiError(403, 'Forbidden', message, details);
  }
}
