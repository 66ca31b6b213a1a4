import { CRD_STORAGE_KEY, NAMESPACE_STORAGE_KEY } from './builtins.js';
import { crdStorageKey } from './crd.js';
import { getCurrent, toServed, toStored, type ApiContext, type Target } from './context.js';
import { ApiError, conflict } from './errors.js';
import { formatTime } from './micro-time.js';
import { isJsonObject, type JsonObject, type KubeObject, type ResourceDef } from './types.js';

/** Deletion with finalizers, namespace termination and CRD cleanup, as the generic registry does them. */

export interface DeleteOptions {
  dryRun: boolean;
  preconditions?: { uid?: string; resourceVersion?: string };
}

const PROTECTED_NAMESPACES = new Set(['default', 'kube-system', 'kube-public']);

/** Returns the body of a 200: the object while finalizers hold it, otherwise a `Success` Status. */
export function deleteObject(ctx: ApiContext, target: Target, opts: DeleteOptions): JsonObject {
  const { def } = target;
  const current = getCurrent(ctx, target);
  const pre = opts.preconditions;
  if (pre?.uid && pre.uid !== current.metadata.uid) {
    const why = `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${current.metadata.uid ?? ''}`;
    throw conflict(def, target.name, why);
  }
  if (pre?.resourceVersion && pre.resourceVersion !== current.metadata.resourceVersion) {
    const why = `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${current.metadata.resourceVersion ?? ''}`;
    throw conflict(def, target.name, why);
  }
  if (def.storageKey === NAMESPACE_STORAGE_KEY && PROTECTED_NAMESPACES.has(target.name)) {
    const message = `namespaces "${target.name}" is forbidden: this namespace may not be deleted`;
    throw new ApiError(403, 'Forbidden', message, { name: target.name, kind: 'namespaces' });
  }
  if (opts.dryRun || current.metadata.deletionTimestamp) return current;
  // Namespaces always terminate first: their `kubernetes` finalizer lives in spec.finalizers.
  if (def.storageKey === NAMESPACE_STORAGE_KEY)
    return terminateNamespace(ctx, markDeleting(ctx, def, current));
  if (current.metadata.finalizers?.length) {
    const marked = markDeleting(ctx, def, current);
    if (def.storageKey === CRD_STORAGE_KEY) terminateCustomResources(ctx, marked);
    return marked;
  }
  removeObject(ctx, def, current);
  return successStatus(def, current);
}

/** Deletes every object the selectors picked (`DELETE` on a collection); returns the served list. */
export function deleteMatching(ctx: ApiContext, def: ResourceDef, objects: KubeObject[]): KubeObject[] {
  const out: KubeObject[] = [];
  for (const obj of objects) {
    const target: Target = {
      def,
      namespace: obj.metadata.namespace ?? '',
      name: obj.metadata.name ?? '',
      subresource: undefined,
    };
    const result = deleteObject(ctx, target, { dryRun: false });
    out.push(result['kind'] === 'Status' ? obj : (result as KubeObject));
  }
  return out;
}

function successStatus(def: ResourceDef, obj: KubeObject): JsonObject {
  const details: JsonObject = { name: obj.metadata.name };
  if (def.group) details['group'] = def.group;
  details['kind'] = def.plural;
  details['uid'] = obj.metadata.uid;
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details };
}

/** `markAsDeleting`: deletionTimestamp, zero grace period and, for kinds with one, a generation bump. */
function markDeleting(ctx: ApiContext, def: ResourceDef, current: KubeObject): KubeObject {
  const next = structuredClone(current);
  next.metadata.deletionTimestamp = formatTime(ctx.now());
  next.metadata.deletionGracePeriodSeconds = 0;
  if (next.metadata.generation !== undefined && next.metadata.generation > 0) next.metadata.generation += 1;
  if (def.storageKey === NAMESPACE_STORAGE_KEY) next['status'] = { phase: 'Terminating' };
  return toServed(def, ctx.store.update(def.storageKey, toStored(def, next), toStored(def, current)));
}

/** Removes the object for good (DELETED), then cleans up what depended on it. */
export function removeObject(ctx: ApiContext, def: ResourceDef, current: KubeObject): void {
  ctx.store.remove(def.storageKey, toStored(def, current));
  if (def.storageKey === CRD_STORAGE_KEY) {
    // Only reached when a client strips the cleanup finalizer itself: instances go without ceremony.
    const key = instancesKey(current);
    for (const obj of ctx.store.list(key)) ctx.store.remove(key, obj);
    ctx.registry.removeCrd(current);
  }
  if (def.namespaced) reapNamespace(ctx, current.metadata.namespace ?? '');
  if (def.isCustom) reapCrd(ctx, def);
}

function instancesKey(crd: KubeObject): string {
  const spec = isJsonObject(crd['spec']) ? crd['spec'] : {};
  const names = isJsonObject(spec['names']) ? spec['names'] : {};
  const group = typeof spec['group'] === 'string' ? spec['group'] : '';
  const plural = typeof names['plural'] === 'string' ? names['plural'] : '';
  return crdStorageKey(group, plural);
}

/** The CRD cleanup finalizer, run inline: delete every instance, then the CRD once none is left. */
function terminateCustomResources(ctx: ApiContext, crd: KubeObject): void {
  const key = instancesKey(crd);
  const def = ctx.registry.all().find((d) => d.storageKey === key);
  if (!def) return;
  for (const stored of ctx.store.list(key)) {
    const obj = toServed(def, stored);
    if (obj.metadata.deletionTimestamp) continue;
    if (obj.metadata.finalizers?.length) markDeleting(ctx, def, obj);
    else ctx.store.remove(key, stored);
  }
  reapCrd(ctx, def);
}

/** Removes a terminating CRD once its last instance is gone, and stops serving it. */
function reapCrd(ctx: ApiContext, def: ResourceDef): void {
  const crd = ctx.store.get(CRD_STORAGE_KEY, '', `${def.plural}.${def.group}`);
  if (!crd?.metadata.deletionTimestamp || ctx.store.list(def.storageKey).length > 0) return;
  ctx.store.remove(CRD_STORAGE_KEY, crd);
  ctx.registry.removeCrd(crd);
}

/** The namespace controller, run inline: delete the content, then the namespace once it is empty. */
function terminateNamespace(ctx: ApiContext, ns: KubeObject): KubeObject {
  const name = ns.metadata.name ?? '';
  for (const def of namespacedStorage(ctx)) {
    for (const stored of ctx.store.list(def.storageKey, name)) {
      const obj = toServed(def, stored);
      if (obj.metadata.deletionTimestamp) continue;
      if (obj.metadata.finalizers?.length) markDeleting(ctx, def, obj);
      else ctx.store.remove(def.storageKey, stored);
    }
  }
  reapNamespace(ctx, name);
  return ns;
}

/** Removes a terminating namespace once nothing is left in it. */
export function reapNamespace(ctx: ApiContext, name: string): void {
  const stored = ctx.store.get(NAMESPACE_STORAGE_KEY, '', name);
  if (!stored?.metadata.deletionTimestamp || stored.metadata.finalizers?.length) return;
  if (namespacedStorage(ctx).some((def) => ctx.store.list(def.storageKey, name).length > 0)) return;
  ctx.store.remove(NAMESPACE_STORAGE_KEY, stored);
}

/** One definition per stored namespaced kind. */
function namespacedStorage(ctx: ApiContext): ResourceDef[] {
  const seen = new Map<string, ResourceDef>();
  for (const def of ctx.registry.all())
    if (def.namespaced && !seen.has(def.storageKey)) seen.set(def.storageKey, def);
  return [...seen.values()];
}
