import type { ForwardTarget } from '@portcullis/config';
import type { RedisConnectionEvents } from '@portcullis/kit';

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
}

/** One captured request as received; nothing in it is normalised or decoded. */
export interface CaptureInput {
  /** Milliseconds since the epoch, by the inbox's clock. */
  receivedAt: number;
  method: string;
  /** The raw request-target: path and query exactly as sent. */
  url: string;
  /** What follows `/api/hook/<id>` in the raw path: `''` or `/…`. */
  nestedPath: string;
  /** `1.1`, `1.0`. */
  httpVersion: string;
  /** Flat `[name, value, name, value, …]`: original order, case and duplicates. */
  rawHeaders: readonly string[];
  remoteAddress: string;
  /** The exact body bytes (possibly compressed, possibly not UTF-8). */
  body: Buffer;
  /** Hex SHA-256 of `body`. */
  bodySha256: string;
}

export interface Capture extends CaptureInput {
  /** The stream entry id, `<ms>-<seq>`: request id, SSE event id and paging cursor at once. */
  id: string;
}

/** One attempt to forward a capture to one target: what `GET …/requests/:requestId` shows as `forwarding`. */
export interface ForwardAttempt {
  /** The target's URL as configured. */
  target: string;
  /** 1 for the first attempt. */
  attempt: number;
  /** The target's HTTP status, when it answered. */
  status?: number;
  /** Why there is no status (connection failed, timed out, refused by the egress policy). */
  error?: string;
  /** ISO 8601. */
  at: string;
  /** ISO 8601, when another attempt is due; absent after the last one. */
  nextAttemptAt?: string;
  /**
   * `retrying`: another attempt is due; `dead`: given up, the capture is in the dead letters; `redriven`: a
   * dead letter sent back to the queue (attempt 0: the count starts again).
   */
  outcome: 'delivered' | 'retrying' | 'dead' | 'redriven';
}

/** Reads new captures of one endpoint, blocking; one per live endpoint per process. */
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
  /** Newest first, ids strictly before `before` when given. */
  listCaptures(endpointId: string, opts: { before?: string; limit: number }): Promise<Capture[]>;
  /** Oldest first, ids strictly after `after`: for replay. */
  listCapturesAfter(endpointId: string, opts: { after: string; limit: number }): Promise<Capture[]>;
  /** The newest capture's id, `0-0` when there is none. */
  lastCaptureId(endpointId: string): Promise<string>;
  countCaptures(endpointId: string): Promise<number>;
  /** Drops captures older than their endpoint's maximum age (and detached ones past theirs). */
  trimByAge(nowMs: number): Promise<void>;
  openTail(endpointId: string): CaptureTail;
  /** Appends to a capture's forwarding history, kept as long as its endpoint keeps captures. */
  recordForwardAttempt(endpointId: string, requestId: string, attempt: ForwardAttempt): Promise<void>;
  /** A capture's forwarding history, oldest first; `[]` when none. */
  listForwardAttempts(endpointId: string, requestId: string): Promise<ForwardAttempt[]>;

  /**
   * Calls `listener` each time the connection to the store comes back after it was lost (the server may
   * have restarted empty, without its managed endpoints); returns how to stop listening. The memory store
   * never loses its contents, so never calls it.
   */
  onReconnect(listener: () => void): () => void;
  close(): Promise<void>;
}
