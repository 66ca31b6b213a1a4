import type { BucketTake } from './types.js';

/**
 * The GCRA step of `BucketTake` on a stored TAT (0 when absent): the answer and the TAT to store, or
 * undefined when nothing changes. `redis-scripts.ts` runs the same arithmetic in Lua.
 */
export function takeFromBucket(tatUs: number, op: BucketTake): { answer: number; store: number | undefined } {
  const base = Math.max(tatUs, op.nowUs);
  const next = base + op.costUs;
  if (next - op.nowUs > op.capacityUs) return { answer: -base, store: undefined };
  return { answer: next, store: op.costUs > 0 ? next : undefined };
}
