import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createMemoryStore } from './memory.js';
import { withPipelineWindow } from './pipeline-window.js';
import type { CounterIncrement, CounterOp, CounterStore } from './types.js';

const op = (key: string): CounterIncrement => ({
  kind: 'increment',
  key,
  hits: 1,
  ttlSeconds: 60,
  unitSeconds: 60,
});

function counting(): { store: CounterStore; flushes: CounterOp[][] } {
  const inner = createMemoryStore();
  const flushes: CounterOp[][] = [];
  return {
    flushes,
    store: { ...inner, run: (ops) => (flushes.push([...ops]), inner.run(ops)) },
  };
}

describe('withPipelineWindow', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('sends the increments of concurrent requests in one flush after the window', async () => {
    const c = counting();
    const store = withPipelineWindow(c.store, { windowMs: 5, limit: 0 });
    const a = store.run([op('a'), op('b')]);
    const b = store.run([op('a')]);
    expect(c.flushes).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(5);
    expect(await a).toEqual([1, 1]);
    expect(await b).toEqual([2]);
    expect(c.flushes.map((f) => f.map((o) => o.key))).toEqual([['a', 'b', 'a']]);
  });

  it('flushes early once the limit of commands waits', async () => {
    const c = counting();
    const store = withPipelineWindow(c.store, { windowMs: 1000, limit: 4 });
    const a = store.run([op('a')]);
    const b = store.run([op('b')]);
    expect(await a).toEqual([1]);
    expect(await b).toEqual([1]);
    expect(c.flushes).toHaveLength(1);
    const late = store.run([op('c')]);
    await vi.advanceTimersByTimeAsync(1000);
    expect(await late).toEqual([1]);
    expect(c.flushes).toHaveLength(2);
  });

  it('counts one command per read or bucket take toward the limit', async () => {
    const c = counting();
    const store = withPipelineWindow(c.store, { windowMs: 1000, limit: 3 });
    const a = store.run([op('a'), { kind: 'read', key: 'b', unitSeconds: 60 }]);
    expect(c.flushes).toHaveLength(1);
    expect(await a).toEqual([1, 0]);
    const take = { kind: 'take', key: 't', unitSeconds: 1, nowUs: 1, costUs: 1, capacityUs: 1 } as const;
    const b = store.run([take, take]);
    expect(c.flushes).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1000);
    expect(await b).toEqual([2, -2]);
  });

  it('fails every request of a failed flush', async () => {
    const failing: CounterStore = {
      ...createMemoryStore(),
      run: () => Promise.reject(new Error('down')),
    };
    const store = withPipelineWindow(failing, { windowMs: 1, limit: 0 });
    const a = store.run([op('a')]);
    const b = store.run([op('b')]);
    const settled = Promise.allSettled([a, b]);
    await vi.advanceTimersByTimeAsync(1);
    expect((await settled).map((r) => r.status)).toEqual(['rejected', 'rejected']);
  });

  it('flushes what waits when closed, and sends nothing when nothing waits', async () => {
    const c = counting();
    const store = withPipelineWindow(c.store, { windowMs: 1000, limit: 0 });
    const a = store.run([op('a')]);
    await store.close();
    expect(c.flushes).toHaveLength(1);
    expect(await a).toEqual([1]);
    const idle = counting();
    await withPipelineWindow(idle.store, { windowMs: 1000, limit: 0 }).close();
    expect(idle.flushes).toEqual([]);
  });

  it('is ready when its store is', async () => {
    const down = { ...createMemoryStore(), ready: () => Promise.reject(new Error('not connected')) };
    await expect(withPipelineWindow(down, { windowMs: 1, limit: 0 }).ready()).rejects.toThrow(
      'not connected',
    );
  });
});
