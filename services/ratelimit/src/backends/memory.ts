import type { CounterIncrement, CounterStore } from './types.js';

interface Slot {
  value: number;
  expiresAtMs: number;
}

/**
 * Counters in this process, for local mode and tests: nothing is shared between replicas and everything
 * is lost on restart. Expired keys are dropped lazily and by a sweep once a second.
 */
export function createMemoryStore(now: () => number = Date.now): CounterStore {
  const slots = new Map<string, Slot>();
  const sweep = setInterval(() => {
    const t = now();
    for (const [key, slot] of slots) if (slot.expiresAtMs <= t) slots.delete(key);
  }, 1000);
  sweep.unref();
  return {
    increment(ops: readonly CounterIncrement[]) {
      const t = now();
      return Promise.resolve(
        ops.map((op) => {
          let slot = slots.get(op.key);
          if (!slot || slot.expiresAtMs <= t) {
            slot = { value: 0, expiresAtMs: 0 };
            slots.set(op.key, slot);
          }
          slot.value += op.hits;
          slot.expiresAtMs = t + op.ttlSeconds * 1000;
          return slot.value;
        }),
      );
    },
    ready: () => Promise.resolve(),
    close() {
      clearInterval(sweep);
      slots.clear();
      return Promise.resolve();
    },
  };
}
