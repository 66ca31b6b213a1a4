import type { Capture } from '../contract/capture-records.js';

// The captures to forward, as the forwarder sees them whatever holds them: Redis Streams read through the
// `forwarders` consumer group (redis-forward-queue.ts, the worker), or the memory store's counterpart of that
// group (memory-forward-queue.ts, the inbox process in local mode). Both keep the same contract: a capture
// read stays pending until `ack`; one left pending (its forwarding interrupted, or its worker dead) is claimed
// again once idle `minIdleMs`; `touch` keeps live ones from looking idle.

export interface QueuedCapture {
  endpointId: string;
  capture: Capture;
  /**
   * Read new (never read by any consumer before), so it has no forwarding history yet; false when claimed
   * (interrupted, or redriven).
   */
  fresh: boolean;
}

export interface ForwardQueue {
  /** Creates the group on streams that lack it (endpoints synced before forwarding existed), at their end. */
  ensureGroups(endpointIds: readonly string[]): Promise<void>;
  /** New captures of these endpoints, waiting up to `blockMs` for the first. */
  readNew(endpointIds: readonly string[], o: { count: number; blockMs: number }): Promise<QueuedCapture[]>;
  /** Captures pending on any consumer for at least `minIdleMs`, now this one's. */
  claimStale(endpointId: string, o: { minIdleMs: number; count: number }): Promise<QueuedCapture[]>;
  touch(endpointId: string, requestIds: readonly string[]): Promise<void>;
  ack(endpointId: string, requestId: string): Promise<void>;
  /** Over these endpoints: captures read and not yet acknowledged (`pending`), captures not yet read (`lag`). */
  backlog(endpointIds: readonly string[]): Promise<{ pending: number; lag: number }>;
  /** Makes a blocked `readNew`, and any later one, reject at once: how the forwarder stops reading. */
  stopReading(): void;
  close(): void;
}
