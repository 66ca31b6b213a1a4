import { setMaxListeners } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';

/** The forwarder's stop: every wait of its own ends early, answering false, once it is given. */
export interface StopSignal {
  readonly signal: AbortSignal;
  stop(): void;
  isStopped(): boolean;
  /** Waits until `dueAt` (`now()` milliseconds); false when stopped first. */
  until(dueAt: number): Promise<boolean>;
  /** Waits for `event`, and at most until `dueAt` when given; false when stopped first. */
  on(event: Promise<void>, dueAt?: number): Promise<boolean>;
}

export function createStopSignal(now: () => number): StopSignal {
  const stopping = new AbortController();
  // every retry wait in flight listens to it, and removes its listener when it ends: past
  // Node's default of 10 that is concurrency, not a leak
  setMaxListeners(0, stopping.signal);
  const { signal } = stopping;
  return {
    signal,
    stop: () => stopping.abort(),
    isStopped: () => signal.aborted,
    async until(dueAt) {
      const waitMs = dueAt - now();
      if (waitMs > 0) {
        try {
          await sleep(waitMs, undefined, { signal });
        } catch {
          // aborted: stopping
        }
      }
      return !signal.aborted;
    },
    async on(event, dueAt) {
      let onAbort = (): void => undefined;
      const aborted = new Promise<void>((resolve) => (onAbort = resolve));
      signal.addEventListener('abort', onAbort, { once: true });
      // cleared once the wait ends, the listener with it: the read loop waits once per slot freed
      let timer: NodeJS.Timeout | undefined;
      const due =
        dueAt === undefined
          ? []
          : [new Promise<void>((resolve) => (timer = setTimeout(resolve, Math.max(0, dueAt - now()))))];
      try {
        await Promise.race([event, aborted, ...due]);
      } finally {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
      }
      return !signal.aborted;
    },
  };
}
