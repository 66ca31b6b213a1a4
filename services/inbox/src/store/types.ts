import type { EndpointResponse, ForwardTarget } from '@portcullis/config';
import type { RedisConnectionEvents } from '@portcullis/kit';
import type {
  Capture,
  CaptureInput,
  ForwardAttempt,
  ForwardingEvent,
  StoredSignature,
} from '../contract/capture-records.js';

// The inbox store: endpoints and their captured requests. Two implementations (redis.ts, memory.ts) behave
// the same; factory.ts picks one. Every method that talks to Redis throws `UnavailableError` when it
// cannot, so a caller never mistakes an outage for "not found".

export interface Retention {
  maxRequests: number;
  maxAgeMs: number;
}

export type EndpointKind = 'anonymous' | 'account' | 'managed';

export interface EndpointRecord {
  /** Matches lib/config's `ENDPOINT_ID`. */
  id: string;
  /** Display name; may be empty. */
  name: string;
  /**
   * `anonymous`: created through the API, read with its token. `account`: created (or claimed) by a
   * signed-in account, read from its sessions only. `managed`: an InboxEndpoint resource.
   */
  kind: EndpointKind;
  /** Hex SHA-256 of the management token of an anonymous endpoint; empty for the other kinds. */
  tokenSha256: string;
  /** The owning account's id; empty unless `kind` is `account`. */
  ownerId: string;
  /** `namespace/name` of the InboxEndpoint resource; empty for anonymous endpoints. */
  resource: string;
  /** ISO 8601. */
  createdAt: string;
  retention: Retention;
  /** Kept for the forwarding worker; always empty for anonymous endpoints. */
  forward: readonly ForwardTarget[];
  /** The signature each capture is checked against; absent when none is set. */
  signature?: StoredSignature;
  /** What its receive URL answers; absent: the inbox's `{"ok":true,…}`. */
  response?: EndpointResponse;
}

/** An anonymous endpoint (a token hash, no owner) or an account's (an owner, no token hash). */
export type NewEndpoint = Omit<EndpointRecord, 'kind' | 'resource' | 'forward'>;

/** What an InboxEndpoint resource defines. */
export interface ManagedEndpoint {
  id: string;
  name: string;
  resource: string;
  retention: Retention;
  forward: readonly ForwardTarget[];
  response?: EndpointResponse;
  /** Sealed by the inbox when the resource arrived: the secret travels over xDS, never rests in clear. */
  signature?: StoredSignature;
}

/** Why retention dropped captures: past the endpoint's `maxRequests`, or its `maxAgeMs`. */
export type TrimReason = 'count' | 'age';

/** Told how many captures each trim dropped: the trimmed-captures metric's hook. */
export type OnTrimmed = (reason: TrimReason, count: number) => void;

/** A read-only share link of an endpoint. Of its token the store keeps the SHA-256 only. */
export interface ShareRecord {
  /** Names the share in the list and in its revocation; not a secret. */
  id: string;
  tokenSha256: string;
  /** ISO 8601. */
  createdAt: string;
}

/** One listener of an endpoint's forwarding events (`InboxStore.watchForwarding`). */
export interface ForwardingWatch {
  /** Resolves once events recorded from then on reach the listener; rejects with `UnavailableError`. */
  subscribed: Promise<void>;
  stop(): void;
}

/**
 * Reads new captures of many endpoints together, blocking: the live streams of a process share one (on
 * Redis: one connection, whatever the number of endpoints).
 */
export interface LiveReader {
  /**
   * Captures after each endpoint's cursor (`cursors`: endpoint id → the last id it has), oldest first, at
   * most `count` per endpoint, waiting up to `blockMs` for the first; by endpoint id, none when none came,
   * when woken, or once closed. Rejects with `UnavailableError`.
   */
  read(
    cursors: ReadonlyMap<string, string>,
    opts: { count: number; blockMs: number },
  ): Promise<CaptureBatches>;
  /** Ends a pending `read` early, with what it has: the endpoints to read changed. */
  wake(): void;
  /** Ends a pending `read` (and a Redis reader's dedicated connection). */
  close(): void;
}

/** New captures by endpoint id, oldest first. */
export type CaptureBatches = Map<string, Capture[]>;

/** Reads new captures of one endpoint, blocking (a `LiveReader` of one endpoint). */
export interface CaptureTail {
  /**
   * Captures after `afterId`, oldest first, at most `count`, waiting up to `blockMs` for the first; `[]`
   * when none came. Rejects with `UnavailableError`, or resolves `[]` once closed.
   */
  next(afterId: string, opts: { count: number; blockMs: number }): Promise<Capture[]>;
  /** Ends a pending `next` (and a Redis tail's dedicated connection). */
  close(): void;
}

export interface InboxStore {
  readonly kind: 'redis' | 'memory';
  /** The Redis connection's status and events (readiness follows them); absent for the memory store. */
  readonly connection?: RedisConnectionEvents;

  /** Stores a new endpoint: an account's when `ownerId` is set, else anonymous. */
  createEndpoint(endpoint: NewEndpoint): Promise<void>;
  /** The account's endpoints, the most recently added first. */
  listAccountEndpoints(accountId: string): Promise<EndpointRecord[]>;
  /**
   * Makes an anonymous endpoint the account's, if its token hash is still `tokenSha256`; its token stops
   * working. False (nothing changed) when it is not, or no longer, such an endpoint.
   */
  claimEndpoint(id: string, claim: { tokenSha256: string; accountId: string }): Promise<boolean>;
  getEndpoint(id: string): Promise<EndpointRecord | undefined>;
  /** False when there is no such endpoint. */
  renameEndpoint(id: string, name: string): Promise<boolean>;
  /**
   * Sets (or with `undefined` removes) an anonymous or account endpoint's signature preset; false when there
   * is no such endpoint, or it is managed.
   */
  setSignature(id: string, signature: StoredSignature | undefined): Promise<boolean>;
  /**
   * Sets (or, with undefined, removes) what an anonymous or account endpoint's receive URL answers; false
   * when there is no such endpoint, or it is managed (its resource says).
   */
  setEndpointResponse(id: string, response: EndpointResponse | undefined): Promise<boolean>;
  /** Sets an anonymous or account endpoint's retention; false as `setEndpointResponse`. */
  setEndpointRetention(id: string, retention: Retention): Promise<boolean>;
  /** Deletes the endpoint and every capture of it; false when there was none. */
  deleteEndpoint(id: string): Promise<boolean>;
  /**
   * Makes the managed endpoints exactly `endpoints` (the full set of InboxEndpoint resources). New ones
   * are created, changed ones updated (their captures kept). One no longer listed stops existing, but its
   * captures are kept until they reach its maximum age, and come back if the resource does (an invalid
   * edit that drops a resource from the snapshot for a while loses nothing). An id held by an anonymous
   * endpoint is left alone and returned in `conflicts`.
   */
  syncManagedEndpoints(endpoints: readonly ManagedEndpoint[]): Promise<{ conflicts: string[] }>;
  /** Every managed endpoint, by id: what the forwarding worker will read its targets from. */
  listManagedEndpoints(): Promise<EndpointRecord[]>;

  /**
   * Appends a capture to an existing endpoint, trimming its oldest beyond `maxRequests`, and resolves with
   * its id once stored; undefined (nothing stored) when the endpoint does not exist, or no longer does.
   */
  appendCapture(endpointId: string, capture: CaptureInput, maxRequests: number): Promise<string | undefined>;
  getCapture(endpointId: string, id: string): Promise<Capture | undefined>;
  /** Newest first, ids strictly before `before` when given, and not before `since` (inclusive) when given. */
  listCaptures(
    endpointId: string,
    opts: { before?: string; since?: string; limit: number },
  ): Promise<Capture[]>;
  /** Oldest first, ids strictly after `after`: for replay. */
  listCapturesAfter(endpointId: string, opts: { after: string; limit: number }): Promise<Capture[]>;
  /** The newest capture's id, `0-0` when there is none. */
  lastCaptureId(endpointId: string): Promise<string>;
  countCaptures(endpointId: string): Promise<number>;
  /** Drops captures older than their endpoint's maximum age (and detached ones past theirs). */
  trimByAge(nowMs: number): Promise<void>;
  openTail(endpointId: string): CaptureTail;
  openLiveReader(): LiveReader;
  /** Appends to a capture's forwarding history, kept as long as its endpoint keeps captures. */
  recordForwardAttempt(endpointId: string, requestId: string, attempt: ForwardAttempt): Promise<void>;
  /** A capture's forwarding history, oldest first; `[]` when none. */
  listForwardAttempts(endpointId: string, requestId: string): Promise<ForwardAttempt[]>;
  /** The forwarding histories of several captures, in the order of `requestIds`: one round trip. */
  listForwardHistories(endpointId: string, requestIds: readonly string[]): Promise<ForwardAttempt[][]>;

  /**
   * Adds a share link to an existing endpoint unless it has `max` already: `created`, `limit` (nothing
   * added) or `missing` (no such endpoint). The shares go with the endpoint when it is deleted.
   */
  createShare(endpointId: string, share: ShareRecord, max: number): Promise<'created' | 'limit' | 'missing'>;
  /** An endpoint's share links, oldest first; `[]` when none. */
  listShares(endpointId: string): Promise<ShareRecord[]>;
  /** Revokes one; false when the endpoint has no such share. */
  deleteShare(endpointId: string, shareId: string): Promise<boolean>;
  /**
   * Tells `listener` of each attempt recorded for the endpoint, by any process on this store, once
   * `subscribed` resolves (Redis: pub/sub, at most once, none while the connection is down; memory: in
   * process).
   */
  watchForwarding(endpointId: string, listener: (event: ForwardingEvent) => void): ForwardingWatch;

  /**
   * Calls `listener` each time the connection to the store comes back after it was lost (the server may
   * have restarted empty, without its managed endpoints); returns how to stop listening. The memory store
   * never loses its contents, so never calls it.
   */
  onReconnect(listener: () => void): () => void;
  close(): Promise<void>;
}
