import { UnavailableError, type Logger } from '@portcullis/kit';
import type { MemoryForwardGroup, MemoryInboxStore } from '../store/memory.js';
import type { ForwardQueue, QueuedCapture } from './forward-queue.js';

/**
 * The queue of local mode: the memory store's forward groups, read by the forwarder inside the inbox process
 * (a separate worker cannot see the memory store). It keeps the Redis queue's contract; with one consumer,
 * a stale capture is one whose forwarding was interrupted, taken up again once idle. Nothing outlives the
 * process: pending captures, and retries still to wait for go with it.
 */
export function createMemoryForwardQueue(o: {
  store: MemoryInboxStore;
  log: Logger;
  now?: () => number;
}): ForwardQueue {
  const now = o.now ?? Date.now;
  const log = o.log.child({ component: 'forward-queue' });
  let stopped = false;
  // read after an await: stopReading may have run meanwhile
  const isStopped = (): boolean => stopped;
  /** Ends the current `readNew` wait: set while one waits. */
  let wakeReader: (() => void) | undefined;

  const groupOf = (endpointId: string): MemoryForwardGroup | undefined =>
    o.store.forwardGroups.get(endpointId);
  const unread = (endpointId: string, group: MemoryForwardGroup, limit: number) =>
    o.store.listCapturesAfter(endpointId, { after: group.lastReadId, limit });
  const stoppedError = (): UnavailableError => new UnavailableError('inbox forward queue: stopped reading');

  /** Which endpoint the next read starts from: a busy one does not keep the others waiting. */
  let turn = 0;

  /** Reads (and marks pending) up to `count` new captures over `endpointIds`, without waiting. */
  const take = async (endpointIds: readonly string[], count: number): Promise<QueuedCapture[]> => {
    const out: QueuedCapture[] = [];
    const first = turn++ % Math.max(1, endpointIds.length);
    for (const endpointId of [...endpointIds.slice(first), ...endpointIds.slice(0, first)]) {
      const group = groupOf(endpointId);
      if (!group || out.length >= count) continue;
      for (const capture of await unread(endpointId, group, count - out.length)) {
        group.lastReadId = capture.id;
        group.pending.set(capture.id, now());
        out.push({ endpointId, capture, fresh: true });
      }
    }
    return out;
  };

  /** Until a capture arrives for one of `endpointIds`, `blockMs` passes, or reading stops. */
  const waitForCapture = async (endpointIds: readonly string[], blockMs: number): Promise<void> => {
    const tails = endpointIds.flatMap((id) => {
      const group = groupOf(id);
      return group ? [{ tail: o.store.openTail(id), after: group.lastReadId }] : [];
    });
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        ...tails.map(({ tail, after }) => tail.next(after, { count: 1, blockMs })),
        // stopReading may have come while this read was looking for captures
        new Promise<void>((resolve) => (isStopped() ? resolve() : (wakeReader = resolve))),
        // the groups may all be gone (endpoints deleted): a poll's wait all the same
        new Promise<void>((resolve) => (timer = setTimeout(resolve, blockMs))),
      ]);
    } finally {
      clearTimeout(timer);
      wakeReader = undefined;
      for (const { tail } of tails) tail.close();
    }
  };

  return {
    async ensureGroups(endpointIds) {
      for (const id of endpointIds) {
        if (o.store.forwardGroups.has(id)) continue;
        const lastReadId = await o.store.lastCaptureId(id);
        o.store.forwardGroups.set(id, groupOf(id) ?? { lastReadId, pending: new Map() });
      }
    },
    async readNew(endpointIds, opts) {
      if (stopped) throw stoppedError();
      const ready = await take(endpointIds, opts.count);
      if (ready.length > 0) return ready;
      await waitForCapture(endpointIds, opts.blockMs);
      if (isStopped()) throw stoppedError();
      return take(endpointIds, opts.count);
    },
    async claimStale(endpointId, opts) {
      const group = groupOf(endpointId);
      if (!group) return [];
      const out: QueuedCapture[] = [];
      let lost = 0;
      for (const [requestId, at] of group.pending) {
        if (out.length >= opts.count) break;
        if (now() - at < opts.minIdleMs) continue;
        const capture = await o.store.getCapture(endpointId, requestId);
        if (capture) {
          group.pending.set(requestId, now());
          out.push({ endpointId, capture, fresh: false });
        } else {
          // trimmed while pending, as Redis reports it: lost to forwarding
          group.pending.delete(requestId);
          lost += 1;
        }
      }
      if (lost > 0) log.warn({ endpointId, lost }, 'pending captures trimmed');
      return out;
    },
    touch(endpointId, requestIds) {
      const group = groupOf(endpointId);
      for (const id of requestIds) if (group?.pending.has(id)) group.pending.set(id, now());
      return Promise.resolve();
    },
    ack(endpointId, requestId) {
      groupOf(endpointId)?.pending.delete(requestId);
      return Promise.resolve();
    },
    async backlog(endpointIds) {
      const totals = { pending: 0, lag: 0 };
      for (const id of endpointIds) {
        const group = groupOf(id);
        if (!group) continue;
        totals.pending += group.pending.size;
        totals.lag += (await unread(id, group, Number.MAX_SAFE_INTEGER)).length;
      }
      return totals;
    },
    stopReading() {
      stopped = true;
      wakeReader?.();
    },
    close() {
      stopped = true;
      wakeReader?.();
    },
  };
}
