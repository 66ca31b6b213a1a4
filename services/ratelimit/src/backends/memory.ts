import { BackendError } from '../errors.js';
import { takeFromBucket } from './bucket-take.js';
import type { CounterOp, CounterStore } from './types.js';

interface Slot {
  value: number;
  expiresAtMs: number;
}

export interface MemoryStoreOptions {
  now?: () => number;
  /** Keys held at once (`MEMORY_MAX_KEYS`); 250,000 by default, about 100 MB at ~390 B a key. */
  maxKeys?: number;
  /** Called once for each `run` refused because it needed keys beyond `maxKeys`: the metric's hook. */
  onFull?: () => void;
}

export const DEFAULT_MEMORY_MAX_KEYS = 250_000;

/**
 * Counters in this process, for local mode and tests: nothing is shared between replicas and everything
 * is lost on restart. Expired keys are dropped lazily and by a sweep once a second. Every `run` is atomic
 * (one synchronous pass), token buckets included.
 *
 * Bounded as Redis with `maxmemory-policy noeviction` is: when a `run` needs new keys and `maxKeys` are
 * held, expired keys are swept at once (at most once per clock second), and if there is still no room the
 * whole `run` is refused with a `BackendError`, changing nothing, so callers get the failure mode they get
 * from a failing Redis (`UNAVAILABLE`, Envoy's `failure_mode_deny` decides). Live counters are never evicted:
 * dropping one would reset someone's window and let them through.
 */
export function createMemoryStore(o: MemoryStoreOptions = {}): CounterStore & { size(): number } {
  const now = o.now ?? Date.now;
  const maxKeys = o.maxKeys ?? DEFAULT_MEMORY_MAX_KEYS;
  const slots = new Map<string, Slot>();
  const removeExpired = (t: number): void => {
    for (const [key, slot] of slots) if (slot.expiresAtMs <= t) slots.delete(key);
  };
  const sweep = setInterval(() => removeExpired(now()), 1000);
  sweep.unref();
  let lastFullSweepSecond = -1;
  /** Keys the ops would add; a take counts as one whether or not it will be admitted. */
  const newKeys = (ops: readonly CounterOp[], t: number): number => {
    const adding = new Set<string>();
    for (const op of ops) if (op.kind !== 'read' && !live(op.key, t)) adding.add(op.key);
    return adding.size;
  };
  const hasRoomFor = (ops: readonly CounterOp[], t: number): boolean => {
    if (slots.size + newKeys(ops, t) <= maxKeys) return true;
    const second = Math.floor(t / 1000);
    if (second === lastFullSweepSecond) return false;
    lastFullSweepSecond = second;
    removeExpired(t);
    return slots.size + newKeys(ops, t) <= maxKeys;
  };
  const live = (key: string, t: number): Slot | undefined => {
    const slot = slots.get(key);
    return slot && slot.expiresAtMs > t ? slot : undefined;
  };
  const apply = (op: CounterOp, t: number): number => {
    switch (op.kind) {
      case 'increment': {
        const value = (live(op.key, t)?.value ?? 0) + op.hits;
        slots.set(op.key, { value, expiresAtMs: t + op.ttlSeconds * 1000 });
        return value;
      }
      case 'read':
        return live(op.key, t)?.value ?? 0;
      case 'take': {
        const { answer, store } = takeFromBucket(live(op.key, t)?.value ?? 0, op);
        // the bucket is full again, the same as absent, once the TAT has passed
        if (store !== undefined)
          slots.set(op.key, { value: store, expiresAtMs: t + (store - op.nowUs) / 1000 });
        return answer;
      }
      default: {
        const unknown: never = op;
        throw new Error(`unknown op ${String(unknown)}`);
      }
    }
  };
  return {
    run(ops: readonly CounterOp[]) {
      const t = now();
      if (!hasRoomFor(ops, t)) {
        o.onFull?.();
        return Promise.reject(
          new BackendError(
            `memory: ${maxKeys} keys held (MEMORY_MAX_KEYS), new keys refused until some expire`,
          ),
        );
      }
      return Promise.resolve(ops.map((op) => apply(op, t)));
    },
    supportsTokenBuckets: true,
    size: () => slots.size,
    ready: () => Promise.resolve(),
    close() {
      clearInterval(sweep);
      slots.clear();
      return Promise.resolve();
    },
  };
}
