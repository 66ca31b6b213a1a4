import { takeFromBucket } from './bucket-take.js';
import type { CounterOp, CounterStore } from './types.js';

interface Slot {
  value: number;
  expiresAtMs: number;
}

/**
 * Counters in this process, for local mode and tests: nothing is shared between replicas and everything
 * is lost on restart. Expired keys are dropped lazily and by a sweep once a second. Every `run` is atomic
 * (one synchronous pass), token buckets included.
 */
export function createMemoryStore(now: () => number = Date.now): CounterStore {
  const slots = new Map<string, Slot>();
  const sweep = setInterval(() => {
    const t = now();
    for (const [key, slot] of slots) if (slot.expiresAtMs <= t) slots.delete(key);
  }, 1000);
  sweep.unref();
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
      return Promise.resolve(ops.map((op) => apply(op, t)));
    },
    supportsTokenBuckets: true,
    ready: () => Promise.resolve(),
    close() {
      clearInterval(sweep);
      slots.clear();
      return Promise.resolve();
    },
  };
}
