import { CoordinationV1Api, V1MicroTime, type V1Lease, type V1LeaseSpec } from '@kubernetes/client-node';
import { quietLog as log, startControlPlane, waitUntil, type ControlPlane } from '@portcullis/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LeaderElector, type LeaderElectionOptions } from '../src/leader-election.js';

// The elector against the real kube-apiserver's Lease. Expiry and the renew deadline are measured on the
// elector's own clock (`now`), which these tests hold still and move by hand, so no test waits out a lease.

let cp: ControlPlane;
const running: LeaderElector[] = [];

beforeAll(async () => {
  cp = await startControlPlane();
}, 180_000);

afterEach(async () => {
  for (const e of running.splice(0)) await e.stop();
});

afterAll(async () => {
  await cp.close();
}, 60_000);

const namespace = 'default';
let leaseCount = 0;
const api = (): CoordinationV1Api => cp.kubeConfig().makeApiClient(CoordinationV1Api);
const readLease = (name: string): Promise<V1Lease> => api().readNamespacedLease({ namespace, name });
const specOf = async (name: string): Promise<V1LeaseSpec> => (await readLease(name)).spec ?? {};

/** A lease written by someone else, as a replica that holds it would. */
async function writeLease(name: string, spec: V1LeaseSpec): Promise<void> {
  const existing = await readLease(name).catch(() => undefined);
  if (existing) await api().replaceNamespacedLease({ namespace, name, body: { ...existing, spec } });
  else await api().createNamespacedLease({ namespace, body: { metadata: { name, namespace }, spec } });
}

/** A clock that stands still until the test moves it; `reads` tells how many times the elector looked. */
function stillClock(): { t: number; reads: number; now: () => number } {
  const clock = { t: Date.now(), reads: 0, now: () => (clock.reads++, clock.t) };
  return clock;
}

/** Waits for `n` more of the elector's attempts (each reads the clock at least once). */
async function attempts(clock: { reads: number }, n: number): Promise<void> {
  const from = clock.reads;
  await waitUntil(() => clock.reads >= from + n, 10_000);
}

interface Started {
  elector: LeaderElector;
  started: () => number;
  stopped: () => number;
}

function startElector(leaseName: string, identity: string, o: Partial<LeaderElectionOptions> = {}): Started {
  let started = 0;
  let stopped = 0;
  const elector = new LeaderElector({
    kubeConfig: cp.kubeConfig(),
    namespace,
    leaseName,
    identity,
    leaseDurationMs: 15_000,
    renewDeadlineMs: 10_000,
    retryPeriodMs: 30,
    log,
    onStartedLeading: () => started++,
    onStoppedLeading: () => stopped++,
    ...o,
  });
  running.push(elector);
  elector.start();
  return { elector, started: () => started, stopped: () => stopped };
}

const freshLease = (): string => `lease-${++leaseCount}`;
const micro = (t: number): V1MicroTime => new V1MicroTime(t);

describe('LeaderElector', () => {
  it('creates a missing lease and renews it, keeping the acquire time and the transitions', async () => {
    const name = freshLease();
    const a = startElector(name, 'a', { leaseDurationMs: 1_500 });
    await waitUntil(() => a.elector.isLeader(), 10_000);
    const first = await specOf(name);
    expect([first.holderIdentity, first.leaseDurationSeconds, first.leaseTransitions, a.started()]).toEqual([
      'a',
      2,
      0,
      1,
    ]);
    expect(String(first.renewTime)).toBe(String(first.acquireTime));
    await waitUntil(async () => String((await specOf(name)).renewTime) !== String(first.renewTime), 10_000);
    const renewed = await specOf(name);
    expect([
      renewed.holderIdentity,
      String(renewed.acquireTime),
      renewed.leaseTransitions,
      a.started(),
    ]).toEqual(['a', String(first.acquireTime), 0, 1]);
  });

  it("waits a lease duration on its own clock, by the lease's duration, before taking a silent holder's lease", async () => {
    const name = freshLease();
    // the server's timestamps say the holder went silent long ago; only the elector's observation counts
    await writeLease(name, {
      holderIdentity: 'other',
      leaseDurationSeconds: 10,
      acquireTime: micro(0),
      renewTime: micro(0),
      leaseTransitions: 4,
    });
    const clock = stillClock();
    const a = startElector(name, 'a', { leaseDurationMs: 2_000, now: clock.now });
    await attempts(clock, 6);
    clock.t += 10_000;
    await attempts(clock, 6);
    expect([a.elector.isLeader(), (await specOf(name)).holderIdentity]).toEqual([false, 'other']);
    clock.t += 1;
    await waitUntil(() => a.elector.isLeader(), 10_000);
    const taken = await specOf(name);
    expect([taken.holderIdentity, taken.leaseTransitions, taken.leaseDurationSeconds, a.started()]).toEqual([
      'a',
      5,
      2,
      1,
    ]);
    expect(new Date(String(taken.acquireTime)).getTime()).toBe(clock.t);
    expect(String(taken.renewTime)).toBe(String(taken.acquireTime));
  });

  it('starts the wait again each time the holder renews', async () => {
    const name = freshLease();
    const holder = { holderIdentity: 'other', leaseDurationSeconds: 10, leaseTransitions: 0 };
    await writeLease(name, { ...holder, renewTime: micro(1) });
    const clock = stillClock();
    const a = startElector(name, 'a', { now: clock.now });
    await attempts(clock, 6);
    clock.t += 6_000;
    await writeLease(name, { ...holder, renewTime: micro(2) });
    await attempts(clock, 6);
    clock.t += 6_000;
    await attempts(clock, 6);
    expect([a.elector.isLeader(), (await specOf(name)).holderIdentity]).toEqual([false, 'other']);
    clock.t += 4_001;
    await waitUntil(() => a.elector.isLeader(), 10_000);
    expect((await specOf(name)).leaseTransitions).toBe(1);
  });

  it('takes a released lease at once, without counting a transition', async () => {
    const name = freshLease();
    await writeLease(name, {
      holderIdentity: '',
      leaseDurationSeconds: 10,
      renewTime: micro(Date.now()),
      leaseTransitions: 3,
    });
    const clock = stillClock();
    const a = startElector(name, 'a', { now: clock.now });
    await waitUntil(() => a.elector.isLeader(), 10_000);
    expect([(await specOf(name)).holderIdentity, (await specOf(name)).leaseTransitions]).toEqual(['a', 3]);
  });

  it('lets exactly one of two electors lead a new lease', async () => {
    const name = freshLease();
    const [clockA, clockB] = [stillClock(), stillClock()];
    const a = startElector(name, 'a', { now: clockA.now });
    const b = startElector(name, 'b', { now: clockB.now });
    await waitUntil(() => a.elector.isLeader() || b.elector.isLeader(), 10_000);
    await Promise.all([attempts(clockA, 6), attempts(clockB, 6)]);
    const leader = a.elector.isLeader() ? 'a' : 'b';
    expect([
      a.started() + b.started(),
      b.elector.isLeader() === (leader === 'b'),
      (await specOf(name)).holderIdentity,
    ]).toEqual([1, true, leader]);
  });

  it('steps down once renewing has failed for longer than the renew deadline, and not before', async () => {
    const name = freshLease();
    const clock = stillClock();
    const a = startElector(name, 'a', { now: clock.now });
    await waitUntil(() => a.elector.isLeader(), 10_000);
    // another replica overwrote the lease: every renewal now finds a live holder that is not this one
    await writeLease(name, {
      holderIdentity: 'b',
      leaseDurationSeconds: 15,
      renewTime: micro(clock.t),
      leaseTransitions: 1,
    });
    await attempts(clock, 6);
    clock.t += 10_000;
    await attempts(clock, 6);
    expect([a.elector.isLeader(), a.stopped()]).toEqual([true, 0]);
    clock.t += 1;
    await waitUntil(() => !a.elector.isLeader(), 10_000);
    await attempts(clock, 6);
    expect([a.stopped(), (await specOf(name)).holderIdentity]).toEqual([1, 'b']);
  });

  it('leaves the lease alone when it stops without leading, or after another replica took the lease', async () => {
    const name = freshLease();
    await writeLease(name, {
      holderIdentity: 'other',
      leaseDurationSeconds: 15,
      renewTime: micro(1),
      leaseTransitions: 0,
    });
    const clock = stillClock();
    const follower = startElector(name, 'f', { now: clock.now });
    await attempts(clock, 6);
    await follower.elector.stop();
    expect((await specOf(name)).holderIdentity).toBe('other');

    const leaseB = freshLease();
    const leaderClock = stillClock();
    const a = startElector(leaseB, 'a', { now: leaderClock.now });
    await waitUntil(() => a.elector.isLeader(), 10_000);
    await writeLease(leaseB, {
      holderIdentity: 'c',
      leaseDurationSeconds: 15,
      renewTime: micro(1),
      leaseTransitions: 1,
    });
    await attempts(leaderClock, 6);
    expect(a.elector.isLeader()).toBe(true);
    await a.elector.stop();
    expect([a.elector.isLeader(), (await specOf(leaseB)).holderIdentity]).toEqual([false, 'c']);
  });
});

describe('LeaderElector.stop', () => {
  it('releases the lease when it comes while a renewal is between its read and its write', async () => {
    // `acquireOrRenew` reads the clock after its read of the lease and before its write: stopping there
    // puts the release's own read beside a renewal that is about to change the lease
    const name = freshLease();
    let stopping: Promise<void> | undefined;
    let armed = false;
    const a: Started = startElector(name, 'a', {
      now: () => {
        if (armed && !stopping && new Error().stack?.includes('acquireOrRenew')) stopping = a.elector.stop();
        return Date.now();
      },
    });
    await waitUntil(() => a.elector.isLeader(), 10_000);
    armed = true;
    await waitUntil(() => stopping !== undefined, 10_000);
    await stopping;
    expect([a.elector.isLeader(), (await specOf(name)).holderIdentity]).toEqual([false, '']);
  });

  it('does not start leading when the lease is taken by an attempt that was in flight at the stop', async () => {
    const name = freshLease();
    let stopping: Promise<void> | undefined;
    // the first attempt finds no lease; the stop comes before it creates one
    const a: Started = startElector(name, 'a', {
      now: () => {
        stopping ??= a.elector.stop();
        return Date.now();
      },
    });
    await waitUntil(() => stopping !== undefined, 10_000);
    await stopping;
    expect([a.started(), a.elector.isLeader(), (await specOf(name)).holderIdentity]).toEqual([0, false, '']);
  });
});
