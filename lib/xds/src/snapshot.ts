import { createHash } from 'node:crypto';
import { DuplicateResourceError } from './errors.js';
import { encodeResourceField } from './response-encoding.js';
import type { XdsResource } from './types.js';

/** A resource as the snapshot keeps it: its own version, and its field of a response encoded once. */
export interface StoredResource extends XdsResource {
  /** The first 16 hex digits of SHA-256 over the value: unchanged as long as the value is. */
  version: string;
  /** The resource as one element of `DiscoveryResponse.resources` (see `encodeResourceField`). */
  field: Uint8Array;
  /** What it adds to its type's version (`versionPart`), kept so a push hashes 10,000 of them in one go. */
  versionPart: Buffer;
}

/** The resources of one type and the version naming them. */
export interface TypeSnapshot {
  version: string;
  /** By name, in name order. */
  resources: ReadonlyMap<string, StoredResource>;
}

function hashValue(value: Uint8Array): string {
  return createHash('sha256').update(value).digest('hex').slice(0, 16);
}

/** A resource's part of its type's version: its name, length-prefixed, then its own version. */
function versionPart(name: string, version: string): Buffer {
  const bytes = Buffer.from(name, 'utf8');
  const part = Buffer.alloc(4 + bytes.length + Buffer.byteLength(version));
  part.writeUInt32BE(bytes.length);
  bytes.copy(part, 4);
  part.write(version, 4 + bytes.length);
  return part;
}

/** The type's version from each resource's `versionPart`, in name order. */
function combineVersions(parts: readonly Buffer[]): string {
  return createHash('sha256').update(Buffer.concat(parts)).digest('hex').slice(0, 16);
}

/**
 * A type's version is a content hash: the first 16 hex digits of SHA-256 over the resources in name order,
 * each its name (length-prefixed) and its own version (the hash of its value). It changes exactly when
 * the content changes, and two operator replicas (or one operator before and after a restart) give the
 * same content the same version.
 */
export function computeVersion(resources: readonly XdsResource[]): string {
  return combineVersions([...resources].sort(byName).map((r) => versionPart(r.name, hashValue(r.value))));
}

/**
 * The version of a type nobody has set (and of any empty set): `e3b0c44298fc1c14`, the hash of no
 * resources. A client waiting for its first config gets it at once with zero resources.
 */
export const EMPTY_VERSION = computeVersion([]);

const EMPTY: TypeSnapshot = { version: EMPTY_VERSION, resources: new Map() };

function byName(a: { name: string }, b: { name: string }): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

export interface SnapshotStore {
  /**
   * Replaces every resource of `typeUrl`; `changed` is false when the content (hence version) is the same.
   * A resource whose value did not change keeps its stored entry (version and encoding): only the changed
   * ones are hashed and encoded.
   */
  set(typeUrl: string, resources: readonly XdsResource[]): { version: string; changed: boolean };
  /** The current resources of a type; the empty snapshot for a type never set. */
  get(typeUrl: string): TypeSnapshot;
}

/** @throws DuplicateResourceError when two resources share a name (a client must NACK such a response). */
export function createSnapshotStore(): SnapshotStore {
  const types = new Map<string, TypeSnapshot>();
  return {
    set(typeUrl, resources) {
      const previous = this.get(typeUrl).resources;
      const stored = new Map<string, StoredResource>();
      for (const r of resources) {
        if (stored.has(r.name)) throw new DuplicateResourceError(typeUrl, r.name);
        const before = previous.get(r.name);
        if (before && (before.value === r.value || Buffer.compare(before.value, r.value) === 0)) {
          stored.set(r.name, before);
          continue;
        }
        const version = hashValue(r.value);
        stored.set(r.name, {
          name: r.name,
          value: r.value,
          version,
          field: encodeResourceField(typeUrl, r.value),
          versionPart: versionPart(r.name, version),
        });
      }
      const sorted = [...stored.values()].sort(byName);
      const version = combineVersions(sorted.map((r) => r.versionPart));
      if (version === this.get(typeUrl).version) return { version, changed: false };
      types.set(typeUrl, { version, resources: new Map(sorted.map((r) => [r.name, r])) });
      return { version, changed: true };
    },
    get(typeUrl) {
      return types.get(typeUrl) ?? EMPTY;
    },
  };
}
