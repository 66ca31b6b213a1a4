/**
 * The inbox's Redis keys. The endpoint id is a hash tag, so one endpoint's keys share a Cluster slot and a
 * script may touch them together:
 *
 * - `<p>ep:{<id>}` HASH: name, kind, tokenSha256, ownerId, resource, createdAt, maxRequests, maxAgeMs,
 *   signature (the preset JSON, its secret sealed)
 *   response (JSON, when set)
 * - `<p>ep:{<id>}:tgt` HASH: forward targets of a managed endpoint, `<index>` → JSON
 * - `<p>ep:{<id>}:req` STREAM: one entry per capture, fields `m` (meta JSON) and `b` (the body bytes)
 * - `<p>endpoints` SET: every endpoint id (what the age trimmer walks)
 * - `<p>account:<accountId>:endpoints` ZSET: an account's endpoint ids, scored by when they joined it (ms)
 * - `<p>managed` SET: the ids of managed endpoints (what a sync compares with; what the worker reads)
 * - `<p>ep:{<id>}:fwd:<requestId>` LIST: forwarding attempts of one capture (JSON), expiring with its age
 * - `<p>ep:{<id>}:shares` HASH: share links, share id → JSON `{id, tokenSha256, createdAt}`
 * - `<p>ep:{<id>}:fwd-events` pub/sub channel: each forwarding attempt recorded (JSON), for live streams
 * - `<p>ep:{<id>}:dlq` STREAM: the endpoint's dead letters, one entry per capture and target given up
 * - `<p>ep:{<id>}:circuits` HASH: worker name → its circuit breakers' states for the endpoint (JSON)
 * - `<p>live-wake:<uuid>` STREAM: one process's live reader is woken by an entry here (one entry at most,
 *   expiring a minute after the last; deleted when the reader closes)
 *
 * The capture stream of an endpoint with enabled targets has the consumer group `FORWARD_GROUP`.
 */
export const FORWARD_GROUP = 'forwarders';

export interface KeyLayout {
  endpoint(id: string): string;
  targets(id: string): string;
  captures(id: string): string;
  forwarding(id: string, requestId: string): string;
  shares(id: string): string;
  forwardingEvents(id: string): string;
  accountEndpoints(accountId: string): string;
  endpoints: string;
  managed: string;
  deadLetters(id: string): string;
  circuits(id: string): string;
  liveWake(readerId: string): string;
}

export function createKeyLayout(prefix: string): KeyLayout {
  return {
    endpoint: (id) => `${prefix}ep:{${id}}`,
    targets: (id) => `${prefix}ep:{${id}}:tgt`,
    captures: (id) => `${prefix}ep:{${id}}:req`,
    forwarding: (id, requestId) => `${prefix}ep:{${id}}:fwd:${requestId}`,
    shares: (id) => `${prefix}ep:{${id}}:shares`,
    forwardingEvents: (id) => `${prefix}ep:{${id}}:fwd-events`,
    accountEndpoints: (accountId) => `${prefix}account:${accountId}:endpoints`,
    endpoints: `${prefix}endpoints`,
    managed: `${prefix}managed`,
    deadLetters: (id) => `${prefix}ep:{${id}}:dlq`,
    circuits: (id) => `${prefix}ep:{${id}}:circuits`,
    liveWake: (readerId) => `${prefix}live-wake:${readerId}`,
  };
}
