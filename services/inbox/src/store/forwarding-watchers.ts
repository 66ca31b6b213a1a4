import type { ForwardingEvent } from '../contract/capture-records.js';

export type ForwardingListener = (event: ForwardingEvent) => void;

/** The listeners of each endpoint's forwarding events in one process: both stores fan out through it. */
export interface ForwardingWatchers {
  /** True when it is the endpoint's first listener. */
  add(endpointId: string, listener: ForwardingListener): boolean;
  /** True when it was the endpoint's last listener. */
  remove(endpointId: string, listener: ForwardingListener): boolean;
  emit(endpointId: string, event: ForwardingEvent): void;
}

export function createForwardingWatchers(): ForwardingWatchers {
  const byEndpoint = new Map<string, Set<ForwardingListener>>();
  return {
    add(endpointId, listener) {
      const set = byEndpoint.get(endpointId) ?? new Set();
      byEndpoint.set(endpointId, set);
      set.add(listener);
      return set.size === 1;
    },
    remove(endpointId, listener) {
      const set = byEndpoint.get(endpointId);
      if (!set?.delete(listener) || set.size > 0) return false;
      byEndpoint.delete(endpointId);
      return true;
    },
    emit(endpointId, event) {
      for (const l of [...(byEndpoint.get(endpointId) ?? [])]) l({ ...event });
    },
  };
}
