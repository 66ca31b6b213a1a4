/**
 * The inbox's Redis keys. The endpoint id is a hash tag, so one endpoint's keys share a Cluster slot and a
 * script may touch them together:
 *
 * - `<p>ep:{<id>}` HASH: name, kind, tokenSha256, ownerId, resource, createdAt, maxRequests, maxAgeMs
 * - `<p>ep:{<id>}:tgt` HASH: forward targets of a managed endpoint, `<index>` → JSON
 * - `<p>ep:{<id>}:req` STREAM: one entry per capture, fields `m` (meta JSON) and `b` (the body bytes)
 * - `<p>endpoints` SET: every endpoint id (what the age trimmer walks)
 * - `<p>account:<accountId>:endpoints` ZSET: an account's endpoint ids, scored by when they joined it (ms)
 * - `<p>managed` SET: the ids of managed endpoints (what a sync compares with; what the worker reads)
 * - `<p>ep:{<id>}:fwd:<requestId>` LIST: forwarding attempts of one capture (JSON), expiring with its age
 * - `<p>ep:{<id>}:dlq` STREAM: the endpoint's dead letters, one entry per capture and target given up
 * - `<p>ep:{<id>}:circuits` HASH: worker name → its circuit breakers' states for the endpoint (JSON)
 *
 * The capture stream of an endpoint with enabled targets has the consumer group `FORWARD_GROUP`.
 */
export const FORWARD_GROUP = 'forwarders';

export interface KeyLayout {
  endpoint(id: string): string;
  targets(id: string): string;
  captures(id: string): string;
  forwarding(id: string, requestId: string): string;
  accountEndpoints(accountId: string): string;
  endpoints: string;
  managed: string;
  deadLetters(id: string): string;
  circuits(id: string): string;
}

export function createKeyLayout(prefix: string): KeyLayout {
  return {
    endpoint: (id) => `${prefix}ep:{${id}}`,
    targets: (id) => `${prefix}ep:{${id}}:tgt`,
    captures: (id) => `${prefix}ep:{${id}}:req`,
    forwarding: (id, requestId) => `${prefix}ep:{${id}}:fwd:${requestId}`,
    accountEndpoints: (accountId) => `${prefix}account:${accountId}:endpoints`,
    endpoints: `${prefix}endpoints`,
    managed: `${prefix}managed`,
    deadLetters: (id) => `${prefix}ep:{${id}}:dlq`,
    circuits: (id) => `${prefix}ep:{${id}}:circuits`,
  };
}
