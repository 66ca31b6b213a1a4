/**
 * Per-target concurrency in one forwarder: at most `limit` deliveries to one target at once, the others
 * waiting in order for a slot. Only deliveries to that target wait; the limit is per process (two workers
 * may each have `limit` requests at the same target).
 */
export interface TargetSlots {
  /** A slot's release, or `undefined` when `signal` aborted first (no slot taken). */
  acquire(key: string, limit: number, signal: AbortSignal): Promise<(() => void) | undefined>;
  /** Deliveries holding a slot for `key` now. */
  active(key: string): number;
}

export function createTargetSlots(): TargetSlots {
  const targets = new Map<string, { active: number; waiting: Array<() => void> }>();
  const releaser = (key: string): (() => void) => {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const t = targets.get(key);
      if (!t) return;
      const next = t.waiting.shift();
      // the slot passes to the next in line: `active` stays
      if (next) next();
      else if (--t.active === 0) targets.delete(key);
    };
  };
  return {
    acquire(key, limit, signal) {
      if (signal.aborted) return Promise.resolve(undefined);
      const t = targets.get(key) ?? { active: 0, waiting: [] };
      targets.set(key, t);
      if (t.active < limit) {
        t.active += 1;
        return Promise.resolve(releaser(key));
      }
      return new Promise((resolve) => {
        const onAbort = (): void => {
          t.waiting.splice(t.waiting.indexOf(granted), 1);
          resolve(undefined);
        };
        const granted = (): void => {
          signal.removeEventListener('abort', onAbort);
          resolve(releaser(key));
        };
        t.waiting.push(granted);
        signal.addEventListener('abort', onAbort, { once: true });
      });
    },
    active: (key) => targets.get(key)?.active ?? 0,
  };
}
