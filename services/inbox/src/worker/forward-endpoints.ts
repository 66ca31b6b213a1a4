import type { EndpointRecord, InboxStore } from '../store/types.js';
import type { ForwardQueue } from '../forwarding-store/forward-queue.js';

/** The managed endpoints with a forward target enabled, as the forwarder last read them. */
export interface ForwardEndpoints {
  /** Reads them again, first making the queue's group on the streams of those new since the last read. */
  refresh(): Promise<void>;
  ids(): string[];
  /** The endpoint as last read, else as the store has it now (one read since, or no longer forwarding). */
  find(endpointId: string): Promise<EndpointRecord | undefined>;
}

export function createForwardEndpoints(o: { store: InboxStore; queue: ForwardQueue }): ForwardEndpoints {
  let endpoints = new Map<string, EndpointRecord>();
  return {
    async refresh() {
      const list = (await o.store.listManagedEndpoints()).filter((e) => e.forward.some((t) => t.enabled));
      await o.queue.ensureGroups(list.filter((e) => !endpoints.has(e.id)).map((e) => e.id));
      endpoints = new Map(list.map((e) => [e.id, e]));
    },
    ids: () => [...endpoints.keys()],
    find: async (endpointId) => endpoints.get(endpointId) ?? (await o.store.getEndpoint(endpointId)),
  };
}
