import { describe, expect, it } from 'vitest';
import { createCircuitBreakers } from './circuit-breaker.js';

const KEY = { endpointId: 'e', target: 'http://t.example' };

function setUp() {
  let clock = 1_000;
  const breakers = createCircuitBreakers({
    failures: 3,
    cooldownMs: 100,
    maxCooldownMs: 300,
    now: () => clock,
  });
  /** The waits admit asks for: a time to wait until, or a probe to wait for; the test answers them. */
  const waits: Array<{ until?: number; resolve: (go: boolean) => void }> = [];
  const wait = {
    until: (at: number) => new Promise<boolean>((resolve) => waits.push({ until: at, resolve })),
    on: (event: Promise<void>) =>
      new Promise<boolean>((resolve) => {
        const w = { resolve };
        waits.push(w);
        void event.then(() => w.resolve(true));
      }),
  };
  const tick = () => new Promise((r) => setImmediate(r));
  return {
    breakers,
    wait,
    waits,
    tick,
    setClock: (ms: number) => (clock = ms),
    state: () => breakers.views().map((v) => [v.state, v.failures, v.openUntil]),
  };
}

describe('circuit breakers', () => {
  it('opens after consecutive failures, lets one probe through after the cool-down, doubles it on failure', async () => {
    const { breakers, wait, waits, tick, setClock, state } = setUp();
    for (let i = 0; i < 2; i++) {
      expect(await breakers.admit(KEY, wait)).toBe(true);
      breakers.report(KEY, 'failure');
    }
    expect(state()).toEqual([['closed', 2, undefined]]);
    breakers.report(KEY, 'failure');
    expect(state()).toEqual([['open', 3, 1_100]]);

    // open: deliveries wait for the cool-down, not counted
    const first = breakers.admit(KEY, wait);
    const second = breakers.admit(KEY, wait);
    await tick();
    expect(waits.map((w) => w.until)).toEqual([1_100, 1_100]);
    setClock(1_100);
    for (const w of waits.splice(0)) w.resolve(true);
    expect(await first).toBe(true);
    await tick();
    // the second waits for the probe's answer
    expect(state()).toEqual([['half-open', 3, 1_100]]);
    expect(waits.map((w) => w.until)).toEqual([undefined]);
    breakers.report(KEY, 'failure');
    await tick();
    // reopened for twice as long; the second now waits for that
    expect(state()).toEqual([['open', 4, 1_300]]);
    expect(waits.map((w) => w.until)).toEqual([undefined, 1_300]);
    setClock(1_300);
    waits.splice(0).at(-1)?.resolve(true);
    expect(await second).toBe(true);
    breakers.report(KEY, 'failure');
    // capped at maxCooldownMs
    expect(state()).toEqual([['open', 5, 1_600]]);
  });

  it('closes on any answer that is not a failure, and forgets the target', async () => {
    const { breakers, wait, state } = setUp();
    for (let i = 0; i < 3; i++) breakers.report(KEY, 'failure');
    expect(state()).toEqual([['open', 3, 1_100]]);
    breakers.report(KEY, 'success');
    expect(state()).toEqual([]);
    expect(await breakers.admit(KEY, wait)).toBe(true);
  });

  it('counts only consecutive failures, and keeps nothing for a healthy target', () => {
    const { breakers, state } = setUp();
    breakers.report(KEY, 'neither');
    expect(state()).toEqual([]);
    breakers.report(KEY, 'failure');
    breakers.report(KEY, 'failure');
    breakers.report(KEY, 'success');
    breakers.report(KEY, 'failure');
    breakers.report(KEY, 'failure');
    expect(state()).toEqual([['closed', 2, undefined]]);
  });

  it('stops waiting when the forwarder stops', async () => {
    const { breakers, waits, state } = setUp();
    for (let i = 0; i < 3; i++) breakers.report(KEY, 'failure');
    const admitted = breakers.admit(KEY, {
      until: () => Promise.resolve(false),
      on: () => Promise.resolve(false),
    });
    expect(await admitted).toBe(false);
    expect(waits).toEqual([]);
    expect(state()).toEqual([['open', 3, 1_100]]);
  });
});
