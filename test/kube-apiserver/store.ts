import type { KubeObject, StoreEvent, WatchEventType } from './types.js';

/**
 * An etcd stand-in: one global revision shared by every kind, objects keyed by storage key and
 * `namespace/name`, and a bounded history that watches replay from.
 */
export class ObjectStore {
  private rev = 0;
  /** Watches and list continuations from a revision below this get 410 Expired. */
  private floorRev = 0;
  private readonly objects = new Map<string, Map<string, KubeObject>>();
  private history: StoreEvent[] = [];
  private log: StoreEvent[] = [];
  private readonly listeners = new Set<(event: StoreEvent) => void>();

  constructor(private readonly historyLimit: number) {}

  get revision(): number {
    return this.rev;
  }

  get floor(): number {
    return this.floorRev;
  }

  get(storageKey: string, namespace: string, name: string): KubeObject | undefined {
    const obj = this.objects.get(storageKey)?.get(objectKey(namespace, name));
    return obj && structuredClone(obj);
  }

  /** Objects sorted by namespace then name, as etcd returns keys. */
  list(storageKey: string, namespace?: string): KubeObject[] {
    const bucket = this.objects.get(storageKey);
    if (!bucket) return [];
    const keys = [...bucket.keys()].sort();
    const prefix = namespace === undefined ? undefined : `${namespace}/`;
    const out: KubeObject[] = [];
    for (const key of keys) {
      if (prefix !== undefined && !key.startsWith(prefix)) continue;
      const obj = bucket.get(key);
      if (obj) out.push(structuredClone(obj));
    }
    return out;
  }

  create(storageKey: string, obj: KubeObject): KubeObject {
    return this.commit('ADDED', storageKey, obj, undefined);
  }

  update(storageKey: string, obj: KubeObject, previous: KubeObject): KubeObject {
    return this.commit('MODIFIED', storageKey, obj, previous);
  }

  /** Removes the object; the DELETED event carries its last state at the deletion revision, as etcd's does. */
  remove(storageKey: string, obj: KubeObject): KubeObject {
    return this.commit('DELETED', storageKey, obj, obj);
  }

  /** Committed events after `revision`, or undefined when history no longer reaches back that far. */
  eventsSince(revision: number): StoreEvent[] | undefined {
    if (revision < this.floorRev) return undefined;
    return this.history.filter((e) => e.revision > revision);
  }

  subscribe(listener: (event: StoreEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Forgets all history: any watch or continue token older than now gets 410. */
  compact(): void {
    this.floorRev = this.rev;
    this.history = [];
  }

  /** Every event since start or the last reset (unbounded, unlike the watch history). */
  events(): StoreEvent[] {
    return this.log.map((e) => structuredClone(e));
  }

  /** Drops every object and all history without events; the revision keeps counting up. */
  reset(): void {
    this.objects.clear();
    this.log = [];
    this.compact();
  }

  private commit(
    type: WatchEventType,
    storageKey: string,
    obj: KubeObject,
    previous: KubeObject | undefined,
  ): KubeObject {
    this.rev += 1;
    const stored = structuredClone(obj);
    stored.metadata.resourceVersion = String(this.rev);
    const namespace = stored.metadata.namespace ?? '';
    const name = stored.metadata.name ?? '';
    let bucket = this.objects.get(storageKey);
    if (!bucket) {
      bucket = new Map();
      this.objects.set(storageKey, bucket);
    }
    if (type === 'DELETED') bucket.delete(objectKey(namespace, name));
    else bucket.set(objectKey(namespace, name), stored);
    const event: StoreEvent = { type, revision: this.rev, storageKey, object: stored };
    if (previous) event.previous = structuredClone(previous);
    this.history.push(event);
    this.log.push(event);
    while (this.history.length > this.historyLimit) {
      const dropped = this.history.shift();
      if (dropped) this.floorRev = dropped.revision;
    }
    for (const listener of [...this.listeners]) listener(event);
    return structuredClone(stored);
  }
}

function objectKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}
