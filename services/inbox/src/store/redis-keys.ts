/**
 * The inbox's Redis keys. The endpoint id is a hash tag, so one endpoint's keys share a Cluster slot and a
 * script may touch them together:
 *
 * - `<p>ep:{<id>}` HASH: name, kind, tokenSha256, resource, createdAt, maxRequests, maxAgeMs
 * - `<p>ep:{<id>}:tgt` HASH: forward targets of a managed endpoint, `<index>` → JSON
 * - `<p>ep:{<id>}:req` STREAM: one entry per capture, fields `m` (meta JSON) and `b` (the body bytes)
 * - `<p>endpoints` SET: every endpoint id (what the age trimmer walks)
 * - `<p>managed` SET: the ids of managed endpoints (what a sync compares with; what the worker will read)
 */
export interface KeyLayout {
  endpoint(id: string): string;
  targets(id: string): string;
  captures(id: string): string;
  endpoints: string;
  managed: string;
}

export function createKeyLayout(prefix: string): KeyLayout {
  return {
    endpoint: (id) => `${prefix}ep:{${id}}`,
    targets: (id) => `${prefix}ep:{${id}}:tgt`,
    captures: (id) => `${prefix}ep:{${id}}:req`,
    endpoints: `${prefix}endpoints`,
    managed: `${prefix}managed`,
  };
}
