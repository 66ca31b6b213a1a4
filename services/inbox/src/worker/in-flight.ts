import type { Logger } from '@portcullis/kit';
import type { QueuedCapture } from '../forwarding-store/forward-queue.js';
import type { StopSignal } from './stop-signal.js';

export interface InFlightOptions {
  /** Forwards one capture; a rejection leaves it pending, to be claimed again once idle. */
  forward: (item: QueuedCapture) => Promise<void>;
  stop: StopSignal;
  log: Logger;
}

/** The captures this forwarder is forwarding now, each once. */
export interface InFlight {
  /** Starts forwarding `item`, unless it is under way already or the forwarder stops. */
  begin(item: QueuedCapture): void;
  size(): number;
  /** The request ids under way, by endpoint. */
  byEndpoint(): Map<string, string[]>;
  /** Resolves when the next one under way finishes. */
  oneDone(): Promise<void>;
  allDone(): Promise<void>;
}

export function createInFlight(o: InFlightOptions): InFlight {
  const inFlight = new Map<string, { endpointId: string; requestId: string; done: Promise<void> }>();
  // one promise for every waiter, settled by the next to finish: no reaction added to each one under way
  let next: { done: Promise<void>; resolve: () => void } | undefined;
  const finished = (): void => {
    next?.resolve();
    next = undefined;
  };
  return {
    begin(item) {
      const key = `${item.endpointId} ${item.capture.id}`;
      if (inFlight.has(key) || o.stop.isStopped()) return;
      const done = o
        .forward(item)
        .catch((err: unknown) => {
          // left pending: claimed again once idle
          o.log.warn(
            { endpointId: item.endpointId, requestId: item.capture.id, err },
            'forwarding interrupted',
          );
        })
        .finally(() => {
          inFlight.delete(key);
          finished();
        });
      inFlight.set(key, { endpointId: item.endpointId, requestId: item.capture.id, done });
    },
    size: () => inFlight.size,
    byEndpoint() {
      const mine = new Map<string, string[]>();
      for (const f of inFlight.values())
        mine.set(f.endpointId, [...(mine.get(f.endpointId) ?? []), f.requestId]);
      return mine;
    },
    oneDone() {
      if (!next) {
        let resolve = (): void => undefined;
        const done = new Promise<void>((r) => (resolve = r));
        next = { done, resolve };
      }
      return next.done;
    },
    allDone: async () => {
      await Promise.all([...inFlight.values()].map((f) => f.done));
    },
  };
}
