import type { Informer, KubernetesObject } from '@kubernetes/client-node';
import { createLogger } from '@portcullis/kit';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { keepInformerRunning } from './keep-informer-running.js';

/**
 * An informer that behaves like client-node 1.4's ListWatch when the list fails: `start()` fires `error`
 * and then resolves (it never rejects). The first `failures` starts fail.
 */
function failingInformer(failures: number): Informer<KubernetesObject> & { starts: number } {
  const onError: Array<(err: unknown) => void> = [];
  const informer = {
    starts: 0,
    on(verb: string, cb: (err: unknown) => void) {
      if (verb === 'error') onError.push(cb);
    },
    start() {
      if (++informer.starts <= failures) {
        const err = Object.assign(new Error('storage is (re)initializing'), { code: 429 });
        for (const cb of onError.slice()) cb(err);
      }
      return Promise.resolve();
    },
    stop: () => Promise.resolve(),
  };
  return informer as unknown as Informer<KubernetesObject> & { starts: number };
}

describe('keepInformerRunning', () => {
  const delays: number[] = [];
  const log = createLogger({
    level: 'warn',
    format: 'json',
    destination: { write: (line) => void delays.push((JSON.parse(line) as { delayMs: number }).delayMs) },
  });
  beforeEach(() => {
    vi.useFakeTimers();
    delays.length = 0;
  });
  afterEach(() => vi.useRealTimers());

  it('counts a start during which the informer fired error as failed: not synced, retried with growing delays', async () => {
    const informer = failingInformer(3);
    const synced: boolean[] = [];
    let started = false;
    const running = keepInformerRunning(informer, {
      log,
      label: { kind: 'RateLimitConfig' },
      backoff: { initialMs: 1000, maxMs: 30_000 },
      onSynced: (s) => synced.push(s),
    });
    void running.started.then(() => (started = true));
    await vi.advanceTimersByTimeAsync(0);
    expect([started, synced]).toEqual([false, [false]]);
    await vi.advanceTimersByTimeAsync(1000);
    await vi.advanceTimersByTimeAsync(2000);
    expect([started, synced]).toEqual([false, [false, false, false]]);
    await vi.advanceTimersByTimeAsync(4000);
    expect([informer.starts, started, synced]).toEqual([4, true, [false, false, false, true]]);
    // doubling from 1 s, each with up to half taken off as jitter
    expect(delays.map((d, i) => d >= 500 * 2 ** i && d <= 1000 * 2 ** i)).toEqual([true, true, true]);
    await running.stop();
  });
});
