import type { Resource } from '../resources.js';

/** What one kind needs for a reconcile: how to validate a spec, what it claims, and its xDS encoding. */
export interface KindHandler<M> {
  typeUrl: string;
  /** Validates the spec with the parser the services use; throws a `ConfigError`. */
  parse(name: string, spec: unknown): M;
  /** Keys that two resources of this kind must not share (a domain, a method and path, an endpoint id). */
  claims(model: M): string[];
  /** Why a newer resource lost `claim` to `owner`. */
  conflictMessage(claim: string, owner: string): string;
  /** The xDS resource, with the Secrets it refers to read from `secrets`. */
  encode(resource: Resource, model: M, secrets: SecretLookup): Encoded;
}

export interface Encoded {
  value: Uint8Array;
  /** Whether the Secrets it refers to were read; absent when it refers to none. */
  refs?: RefsStatus;
}

/** A Secret as read: its keys' bytes, or why it could not be read (`forbidden`, the API server down). */
export type SecretState = { data: ReadonlyMap<string, Buffer> } | { error: string };

/** The Secrets resources refer to, by namespace and name; undefined when there is no such Secret. */
export interface SecretLookup {
  secret(namespace: string, name: string): SecretState | undefined;
}

/** The `ResolvedRefs` condition: whether a resource's Secrets were read and hold what it needs. */
export type RefsStatus =
  | { resolved: true; message: string }
  | { resolved: false; reason: 'SecretNotFound' | 'SecretNotReadable' | 'InvalidSecret'; message: string };

/** `NotSupportedOverXds`: valid, but uses keys upstream's xDS message has no field for (`YAML_ONLY_KEYS`). */
export type Rejection = { reason: 'Invalid' | 'NotSupportedOverXds' | 'Conflict'; message: string };

export interface Outcome {
  resource: Resource;
  /** Undefined when the current generation was accepted. */
  rejection: Rejection | undefined;
  /** The generation being served (the current one, or the last good one after a bad edit), if any. */
  servedGeneration: number | undefined;
  /** Whether the served generation's Secrets were read; absent when it refers to none. */
  refs?: RefsStatus;
}

export interface KindResult<M = unknown> {
  typeUrl: string;
  outcomes: Outcome[];
  resources: Array<{ name: string; value: Uint8Array }>;
  /** The models being served, by resource name, in the order they claimed. */
  models: Array<{ name: string; model: M }>;
}
