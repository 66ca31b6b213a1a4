import type { EndpointRecord, InboxStore } from '../store/types.js';

const TTL_MS = 1000;
const MAX_ENTRIES = 10_000;

/**
 * Endpoint lookups for the capture path, remembered for a second: a busy endpoint costs one Redis round
 * trip per capture (the write) instead of two. Safe because the write itself checks that the endpoint
 * still exists; a deleted endpoint's captures are refused by it, never stored.
 */
export function createEndpointCache(store: Pick<InboxStore, 'getEndpoint'>, now: () => number = Date.now) {
  const entries = new Map<string, { endpoint: EndpointRecord; expiresAtMs: number }>();
  return {
    async get(id: string): Promise<EndpointRecord | undefined> {
      const t = now();
      const hit = entries.get(id);
      if (hit && hit.expiresAtMs > t) return hit.endpoint;
      const endpoint = await store.getEndpoint(id);
      if (!endpoint) {
        entries.delete(id);
        return undefined;
      }
      if (entries.size >= MAX_ENTRIES) entries.clear();
      entries.set(id, { endpoint, expiresAtMs: t + TTL_MS });
      return endpoint;
    },
  };
}
