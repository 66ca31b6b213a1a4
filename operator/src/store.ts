import { KINDS, type Kind } from '@portcullis/config';
import type { SecretLookup, SecretState } from './reconcile/types.js';
import { resourceName, type Resource } from './resources.js';

/**
 * The resources currently known, by kind and `namespace/name`, fed by a source and read by reconciles; in
 * directory mode also the Secrets among the manifests (in a cluster, `SecretReader` reads them instead).
 */
export class ResourceStore implements SecretLookup {
  private readonly byKind = new Map<Kind, Map<string, Resource>>(KINDS.map((k) => [k, new Map()]));
  private secrets = new Map<string, ReadonlyMap<string, Buffer>>();
  private readonly listeners: Array<() => void> = [];
  private readonly statusListeners: Array<(resource: Resource) => void> = [];

  /**
   * Adds or replaces a resource. A new status alone (the same uid, generation and spec) goes to the
   * `onStatusChange` listeners, not to `onChange`: reconciles read only the spec, and those updates are
   * mostly the operator's own status writes coming back through the watch, which would otherwise start a
   * reconcile of every resource each.
   */
  upsert(resource: Resource): void {
    const map = this.kind(resource.kind);
    const name = resourceName(resource);
    const before = map.get(name);
    map.set(name, resource);
    if (before && isStatusOnlyUpdate(before, resource)) {
      for (const l of this.statusListeners.slice()) l(resource);
    } else this.changed();
  }

  remove(kind: Kind, name: string): void {
    if (this.kind(kind).delete(name)) this.changed();
  }

  /** Replaces every resource of a kind at once (a relist, a directory reload). */
  replaceAll(kind: Kind, resources: readonly Resource[]): void {
    const map = this.kind(kind);
    map.clear();
    for (const r of resources) map.set(resourceName(r), r);
    this.changed();
  }

  /** Replaces every Secret at once, by `namespace/name`. */
  replaceSecrets(secrets: ReadonlyMap<string, ReadonlyMap<string, Buffer>>): void {
    this.secrets = new Map(secrets);
    this.changed();
  }

  secret(namespace: string, name: string): SecretState | undefined {
    const data = this.secrets.get(`${namespace}/${name}`);
    return data && { data };
  }

  list(kind: Kind): Resource[] {
    return [...this.kind(kind).values()];
  }

  get(kind: Kind, name: string): Resource | undefined {
    return this.kind(kind).get(name);
  }

  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  /** A resource whose status alone changed (see `upsert`). */
  onStatusChange(listener: (resource: Resource) => void): void {
    this.statusListeners.push(listener);
  }

  private kind(kind: Kind): Map<string, Resource> {
    const map = this.byKind.get(kind);
    if (!map) throw new Error(`unknown kind ${kind}`);
    return map;
  }

  private changed(): void {
    for (const l of this.listeners.slice()) l();
  }
}

function isStatusOnlyUpdate(before: Resource, after: Resource): boolean {
  return (
    before.metadata.uid === after.metadata.uid &&
    before.metadata.generation === after.metadata.generation &&
    JSON.stringify(before.spec) === JSON.stringify(after.spec)
  );
}
