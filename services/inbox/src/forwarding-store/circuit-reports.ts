import type { CircuitReport, CircuitState } from '../contract/forwarding-json.js';

// Where each forwarder says which of its targets' circuits are not closed, for the API and the inspector to
// show: the breakers themselves stay in each forwarder (a worker does not stop because another one's circuit
// opened). Redis: a hash per endpoint, a field per worker (redis-circuit-reports.ts); local mode: memory.

/** One circuit as its forwarder holds it: what it publishes. */
export interface CircuitView {
  endpointId: string;
  target: string;
  state: CircuitState;
  /** Consecutive failures. */
  failures: number;
  /** When open: when a probe may go (ms). */
  openUntil?: number;
}

export interface CircuitReports {
  /**
   * Replaces what `worker` said before, endpoint by endpoint; what it says holds until `ttlMs` passes
   * without another publish (a worker that died says nothing more).
   */
  publish(worker: string, views: readonly CircuitView[], ttlMs: number): Promise<void>;
  read(endpointId: string): Promise<CircuitReport[]>;
}

export function toCircuitReport(worker: string, v: CircuitView): CircuitReport {
  return {
    worker,
    target: v.target,
    state: v.state,
    failures: v.failures,
    ...(v.openUntil === undefined ? {} : { openUntil: new Date(v.openUntil).toISOString() }),
  };
}

/** Local mode's: one forwarder, in this process. */
export function createMemoryCircuitReports(o: { now?: () => number } = {}): CircuitReports {
  const now = o.now ?? Date.now;
  let latest: { worker: string; views: readonly CircuitView[]; expiresAt: number } | undefined;
  return {
    publish(worker, views, ttlMs) {
      latest = { worker, views, expiresAt: now() + ttlMs };
      return Promise.resolve();
    },
    read(endpointId) {
      if (!latest || latest.expiresAt <= now()) return Promise.resolve([]);
      const { worker, views } = latest;
      return Promise.resolve(
        views.filter((v) => v.endpointId === endpointId).map((v) => toCircuitReport(worker, v)),
      );
    },
  };
}
