import { createHash } from 'node:crypto';
import { DuplicateResourceError } from './errors.js';
import type { XdsResource } from './types.js';

/** The resources of one type and the version naming them. */
export interface TypeSnapshot {
  version: string;
  /** By name, in name order. */
  resources: ReadonlyMap<string, XdsResource>;
}

/**
 * A type's version is a content hash: the first 16 hex digits of SHA-256 over the resources in name order
 * (each name and value length-prefixed). It changes exactly when the content changes, and two operator
 * replicas (or one operator before and after a restart) give the same content the same version.
 */
export function computeVersion(resources: readonly XdsResource[]): string {
  const hash = createHash('sha256');
  const length = Buffer.alloc(4);
  for (const r of [...resources].sort(byName)) {
    const name = Buffer.from(r.name, 'utf8');
    length.writeUInt32BE(name.length);
    hash.update(length).update(name);
    length.writeUInt32BE(r.value.length);
    hash.update(length).update(r.value);
  }
  return hash.digest('hex').slice(0, 16);
}

/**
 * The version of a type nobody has set (and of any empty set): `e3b0c44298fc1c14`, the hash of no
 * resources. A client waiting for its first config gets it at once with zero resources.
 */
export const EMPTY_VERSION = computeVersion([]);

const EMPTY: TypeSnapshot = { version: EMPTY_VERSION, resources: new Map() };

function byName(a: XdsResource, b: XdsResource): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

export interface SnapshotStore {
  /** Replaces every resource of `typeUrl`; `changed` is false when the content (hence version) is the same. */
  set(typeUrl: string, resources: readonly XdsResource[]): { version: string; changed: boolean };
  /** The current resources of a type; the empty snapshot for a type never set. */
  get(typeUrl: string): TypeSnapshot;
}

/** @throws DuplicateResourceError when two resources share a name (a client must NACK such a response). */
export function createSnapshotStore(): SnapshotStore {
  const types = new Map<string, TypeSnapshot>();
  return {
    set(typeUrl, resources) {
      const names = new Set<string>();
      for (const r of resources) {
        if (names.has(r.name)) throw new DuplicateResourceError(typeUrl, r.name);
        names.add(r.name);
      }
      const version = computeVersion(resources);
      if (version === this.get(typeUrl).version) return { version, changed: false };
      const sorted = [...resources]
        .sort(byName)
        .map((r) => [r.name, { name: r.name, value: r.value }] as const);
      types.set(typeUrl, { version, resources: new Map(sorted) });
      return { version, changed: true };
    },
    get(typeUrl) {
      return types.get(typeUrl) ?? EMPTY;
    },
  };
}
