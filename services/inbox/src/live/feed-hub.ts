import type { Logger } from '@portcullis/kit';
import type { Capture, ForwardingEvent } from '../contract/capture-records.js';
import type { CaptureTail, ForwardingWatch, InboxStore } from '../store/types.js';

export interface FeedListener {
  /** Called in id order, synchronously from the endpoint's read loop: queue, never block. */
  onCapture(capture: Capture): void;
  /** A forwarding attempt recorded (by any process): queue, never block. Not ordered with the captures. */
  onForwarding(event: ForwardingEvent): void;
  /** The endpoint no longer exists; nothing more will come. */
  onEnd(reason: 'deleted'): void;
}

export interface FeedSubscription {
  /** Every capture with an id above this one reaches the listener. */
  cursor: string;
  unsubscribe: () => void;
}

export interface FeedHub {
  /**
   * Adds a listener to the endpoint's read loop, starting the loop if it is the first. Resolves once the
   * loop knows where it reads from. Rejects with `UnavailableError` when that cannot be read.
   */
  subscribe(endpointId: string, listener: FeedListener): Promise<FeedSubscription>;
  /** Endpoints with a running read loop. */
  liveEndpoints(): string[];
  close(): void;
}

export interface FeedHubOptions {
  store: InboxStore;
  log: Logger;
  /** How long one read waits for captures; also how often a quiet loop checks that its endpoint exists. */
  blockMs?: number;
  /** Wait after a failed read. */
  retryMs?: number;
  batchSize?: number;
}

const isStopped = (loop: { stopped: boolean }): boolean => loop.stopped;

interface Loop {
  listeners: Set<FeedListener>;
  cursor: string;
  ready: Promise<void>;
  tail: CaptureTail;
  forwarding: ForwardingWatch;
  stopped: boolean;
  wakeRetry?: () => void;
}

/**
 * One read loop per endpoint per process, shared by all its live subscribers: a tail on the store (Redis:
 * XREAD BLOCK on its own connection; memory: an in-process notifier), so captures taken by any process
 * sharing the Redis reach every subscriber; and a watch on its forwarding attempts (recorded by a worker,
 * or the local forwarder). A loop starts with its first listener and stops with its last.
 */
export function createFeedHub(o: FeedHubOptions): FeedHub {
  const log = o.log.child({ component: 'feed-hub' });
  const blockMs = o.blockMs ?? 5000;
  const retryMs = o.retryMs ?? 1000;
  const count = o.batchSize ?? 100;
  const loops = new Map<string, Loop>();

  const stop = (endpointId: string, loop: Loop): void => {
    loop.stopped = true;
    loop.tail.close();
    loop.forwarding.stop();
    loop.wakeRetry?.();
    if (loops.get(endpointId) === loop) loops.delete(endpointId);
  };

  const run = async (endpointId: string, loop: Loop): Promise<void> => {
    while (!loop.stopped) {
      let batch: Capture[];
      try {
        batch = await loop.tail.next(loop.cursor, { count, blockMs });
      } catch (err: unknown) {
        log.warn({ endpointId, err }, 'live read failed, retrying');
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, retryMs);
          loop.wakeRetry = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        continue;
      }
      if (isStopped(loop)) return;
      if (batch.length === 0) {
        if (await isGone(endpointId)) {
          stop(endpointId, loop);
          for (const l of [...loop.listeners]) l.onEnd('deleted');
        }
        continue;
      }
      for (const capture of batch) {
        loop.cursor = capture.id;
        for (const l of [...loop.listeners]) l.onCapture(capture);
      }
    }
  };

  const isGone = async (endpointId: string): Promise<boolean> => {
    try {
      return (await o.store.getEndpoint(endpointId)) === undefined;
    } catch {
      return false; // the store is down, not the endpoint gone: the next read will tell
    }
  };

  const start = (endpointId: string): Loop => {
    const listeners = new Set<FeedListener>();
    const loop: Loop = {
      listeners,
      cursor: '',
      ready: Promise.resolve(),
      tail: o.store.openTail(endpointId),
      forwarding: o.store.watchForwarding(endpointId, (event) => {
        for (const l of [...listeners]) l.onForwarding(event);
      }),
      stopped: false,
    };
    // watching before the first capture is read: an attempt recorded for it is never missed
    loop.ready = Promise.all([o.store.lastCaptureId(endpointId), loop.forwarding.subscribed]).then(([id]) => {
      loop.cursor = id;
      if (!loop.stopped) void run(endpointId, loop);
    });
    loop.ready.catch(() => stop(endpointId, loop));
    loops.set(endpointId, loop);
    return loop;
  };

  return {
    async subscribe(endpointId, listener) {
      const loop = loops.get(endpointId) ?? start(endpointId);
      loop.listeners.add(listener);
      const unsubscribe = (): void => {
        loop.listeners.delete(listener);
        if (loop.listeners.size === 0) stop(endpointId, loop);
      };
      try {
        await loop.ready;
      } catch (err: unknown) {
        unsubscribe();
        throw err;
      }
      return { cursor: loop.cursor, unsubscribe };
    },
    liveEndpoints: () => [...loops.keys()],
    close() {
      for (const [id, loop] of [...loops]) stop(id, loop);
    },
  };
}
