import type { Logger } from '@portcullis/kit';
import type { Capture, ForwardingEvent } from '../contract/capture-records.js';
import { compareStreamIds } from '../contract/stream-id.js';
import type { ForwardingWatch, InboxStore, LiveReader } from '../store/types.js';

export interface FeedListener {
  /** Called in id order, synchronously from the process's read loop: queue, never block. */
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
   * Adds a listener to the endpoint's feed, starting the feed if it is the first. Resolves once the feed
   * knows where it reads from. Rejects with `UnavailableError` when that cannot be read.
   */
  subscribe(endpointId: string, listener: FeedListener): Promise<FeedSubscription>;
  /** Endpoints with a feed. */
  liveEndpoints(): string[];
  close(): void;
}

export interface FeedHubOptions {
  store: InboxStore;
  log: Logger;
  /** How long one read waits for captures; also how often the feeds' endpoints are checked to exist. */
  blockMs?: number;
  /** Wait after a failed read. */
  retryMs?: number;
  /** Captures per endpoint per read, at most. */
  batchSize?: number;
}

interface Feed {
  listeners: Set<FeedListener>;
  /** The last capture read; read by the loop once `ready` has resolved and `live` is set. */
  cursor: string;
  live: boolean;
  ready: Promise<void>;
  forwarding: ForwardingWatch;
}

interface ReadLoop {
  reader: LiveReader;
  wakeRetry?: () => void;
}

/**
 * One feed per endpoint per process, shared by all its live subscribers, and one read loop per process,
 * shared by every feed: a live reader on the store (Redis: one XREAD BLOCK over every endpoint's stream,
 * on one connection; memory: an in-process notifier), so captures taken by any process sharing the Redis
 * reach every subscriber; and per feed a watch on its endpoint's forwarding attempts (recorded by a worker,
 * or the local forwarder). A feed starts with its first listener and stops with its last; the read loop
 * (and its connection) runs while there is a feed.
 */
export function createFeedHub(o: FeedHubOptions): FeedHub {
  const log = o.log.child({ component: 'feed-hub' });
  const blockMs = o.blockMs ?? 5000;
  const retryMs = o.retryMs ?? 1000;
  const count = o.batchSize ?? 100;
  const feeds = new Map<string, Feed>();
  let loop: ReadLoop | undefined;
  let checkedAt = Date.now();

  const stopLoop = (): void => {
    if (!loop) return;
    loop.reader.close();
    loop.wakeRetry?.();
    loop = undefined;
  };

  const stop = (endpointId: string, feed: Feed): void => {
    feed.forwarding.stop();
    if (feeds.get(endpointId) !== feed) return;
    feeds.delete(endpointId);
    if (feeds.size === 0) stopLoop();
  };

  const deliver = (batches: Map<string, Capture[]>): void => {
    for (const [endpointId, captures] of batches) {
      const feed = feeds.get(endpointId);
      if (!feed?.live) continue;
      for (const capture of captures) {
        // a feed that rejoined the read may be handed what it already had
        if (compareStreamIds(capture.id, feed.cursor) <= 0) continue;
        feed.cursor = capture.id;
        for (const l of [...feed.listeners]) l.onCapture(capture);
      }
    }
  };

  const endDeleted = async (endpointIds: readonly string[]): Promise<void> => {
    const gone = await Promise.all(endpointIds.map(isGone));
    endpointIds.forEach((endpointId, i) => {
      const feed = feeds.get(endpointId);
      if (!gone[i] || !feed) return;
      stop(endpointId, feed);
      for (const l of [...feed.listeners]) l.onEnd('deleted');
    });
  };

  const isGone = async (endpointId: string): Promise<boolean> => {
    try {
      return (await o.store.getEndpoint(endpointId)) === undefined;
    } catch {
      return false; // the store is down, not the endpoint gone: the next read will tell
    }
  };

  const isRunning = (current: ReadLoop): boolean => loop === current;

  const run = async (current: ReadLoop): Promise<void> => {
    while (isRunning(current)) {
      const cursors = new Map<string, string>();
      for (const [endpointId, feed] of feeds) if (feed.live) cursors.set(endpointId, feed.cursor);
      let batches: Map<string, Capture[]>;
      try {
        batches = await current.reader.read(cursors, { count, blockMs });
      } catch (err: unknown) {
        log.warn({ endpoints: cursors.size, err }, 'live read failed, retrying');
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, retryMs);
          current.wakeRetry = () => {
            clearTimeout(timer);
            resolve();
          };
        });
        continue;
      }
      if (!isRunning(current)) return;
      deliver(batches);
      if (Date.now() - checkedAt >= blockMs) {
        checkedAt = Date.now();
        await endDeleted([...cursors.keys()]);
      }
    }
  };

  const start = (endpointId: string): Feed => {
    const listeners = new Set<FeedListener>();
    const feed: Feed = {
      listeners,
      cursor: '',
      live: false,
      ready: Promise.resolve(),
      forwarding: o.store.watchForwarding(endpointId, (event) => {
        for (const l of [...listeners]) l.onForwarding(event);
      }),
    };
    // watching before the first capture is read: an attempt recorded for it is never missed
    feed.ready = Promise.all([o.store.lastCaptureId(endpointId), feed.forwarding.subscribed]).then(([id]) => {
      feed.cursor = id;
      feed.live = true;
      loop?.reader.wake(); // the pending read does not name this endpoint
    });
    feed.ready.catch(() => stop(endpointId, feed));
    feeds.set(endpointId, feed);
    if (!loop) {
      const current: ReadLoop = { reader: o.store.openLiveReader() };
      loop = current;
      void run(current);
    }
    return feed;
  };

  return {
    async subscribe(endpointId, listener) {
      const feed = feeds.get(endpointId) ?? start(endpointId);
      feed.listeners.add(listener);
      const unsubscribe = (): void => {
        feed.listeners.delete(listener);
        if (feed.listeners.size === 0) stop(endpointId, feed);
      };
      try {
        await feed.ready;
      } catch (err: unknown) {
        unsubscribe();
        throw err;
      }
      return { cursor: feed.cursor, unsubscribe };
    },
    liveEndpoints: () => [...feeds.keys()],
    close() {
      for (const [endpointId, feed] of [...feeds]) stop(endpointId, feed);
      stopLoop();
    },
  };
}
