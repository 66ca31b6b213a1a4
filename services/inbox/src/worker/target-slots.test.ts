import { describe, expect, it } from 'vitest';
import { createTargetSlots } from './target-slots.js';

describe('target slots', () => {
  it('lets `limit` deliveries at a time to one target, the next in order as one ends; other targets are free', async () => {
    const slots = createTargetSlots();
    const signal = new AbortController().signal;
    const a1 = await slots.acquire('a', 2, signal);
    const a2 = await slots.acquire('a', 2, signal);
    const order: number[] = [];
    const a3 = slots.acquire('a', 2, signal).then((r) => (order.push(3), r));
    const a4 = slots.acquire('a', 2, signal).then((r) => (order.push(4), r));
    expect(await slots.acquire('b', 2, signal)).toBeDefined();
    expect(slots.active('a')).toBe(2);
    a1?.();
    a1?.(); // twice is once
    (await a3)?.();
    a2?.();
    (await a4)?.();
    expect(order).toEqual([3, 4]);
    expect(slots.active('a')).toBe(0);
  });

  it('gives up waiting when the signal aborts, taking no slot', async () => {
    const slots = createTargetSlots();
    const stop = new AbortController();
    const held = await slots.acquire('a', 1, stop.signal);
    const waiting = slots.acquire('a', 1, stop.signal);
    stop.abort();
    expect(await waiting).toBeUndefined();
    held?.();
    expect(slots.active('a')).toBe(0);
    expect(await slots.acquire('a', 1, stop.signal)).toBeUndefined();
  });
});
