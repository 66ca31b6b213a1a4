import {
  CoordinationV1Api,
  type KubeConfig,
  V1MicroTime,
  type V1Lease,
  type V1LeaseSpec,
} from '@kubernetes/client-node';
import {
  createCollectingLog,
  kubeConfigVia,
  quietLog as log,
  startControlPlane,
  startTcpProxy,
  waitUntil,
  type ControlPlane,
  type TcpProxy,
} from '@portcullis/testing';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LeaderElector, type LeaderElectionOptions } from '../src/leader-election.js';

// The elector against the real kube-apiserver's Lease. Expiry and the renew deadline are measured on the
// elector's own clock (`now`), which these tests hold still and move by hand, so no test waits out a lease.

let cp: ControlPlane;
/** Between the electors given `proxied()` and the API server, for a test to cut or hold. */
let proxy: TcpProxy;
const running: LeaderElector[] = [];

beforeAll(async () => {
  cp = await startControlPlane();
  proxy = await startTcpProxy(Number(new URL(cp.url).port));
}, 180_000);

afterEach(async () => {
  proxy.release();
  proxy.heal();
  for (const e of running.splice(0)) await e.stop();
});

afterAll(async () => {
  await proxy.close();
  await cp.close();
}, 60_000);

/** The admin reaching the API server through `proxy`. */
const proxied = (): KubeConfig => kubeConfigVia(cp.kubeConfig(), proxy.port);

/** A ServiceAccount allowed only `verbs` on leases. */
async function allowedOnly(name: string, verbs: string): Promise<KubeConfig> {
  const ns = ['--namespace', namespace];
  await cp.kubectl(['create', 'serviceaccount', name, ...ns]);
  await cp.kubectl([
    'create',
    'role',
    name,
    `--verb=${verbs}`,
    '--resource=leases.coordination.k8s.io',
    ...ns,
  ]);
  await cp.kubectl([
    'create',
    'rolebinding',
    name,
    `--role=${name}`,
    `--serviceaccount=${namespace}:${name}`,
    ...ns,
  ]);
  return (await cp.serviceAccountKubeconfig(namespace, name)).kubeConfig;
}

type LogLines = ReadonlyArray<Record<string, unknown>>;
/** The lines at `level`, as `[message, fields…]` with the given fields picked. */
const linesAt = (lines: LogLines, level: string, ...fields: string[]) =>
  lines.filter((l) => l.level === level).map((l) => [l['@message'], ...fields.map((f) => l[f])]);

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

/** A lease `holderIdentity` holds (`''`: released) for 15 s, last renewed at `renewTime` (ms). */
const heldBy = (
  holderIdentity: string,
  o: { renewTime?: number; transitions?: number } = {},
): V1LeaseSpec => ({
  holderIdentity,
  leaseDurationSeconds: 15,
  renewTime: micro(o.renewTime ?? 1),
  leaseTransitions: o.transitions ?? 0,
});

describe('LeaderElector', () => {
  it('creates a missing lease and renews it each retry period, keeping the acquire time and the transitions', async () => {
    const name = freshLease();
    const clock = stillClock();
    const { log: collecting, lines } = createCollectingLog();
    const a = startElector(name, 'a', { leaseDurationMs: 1_500, now: clock.now, log: collecting });
    await waitUntil(() => a.elector.isLeader(), 10_000);
    const first = await specOf(name);
    expect([first.holderIdentity, first.leaseDurationSeconds, first.leaseTransitions, a.started()]).toEqual([
      'a',
      2,
      0,
      1,
    ]);
    expect([String(first.renewTime), new Date(String(first.acquireTime)).getTime()]).toEqual([
      String(first.acquireTime),
      clock.t,
    ]);
    // well within the lease's 2 s on the elector's clock: a renewal, not a lease taken again as expired
    clock.t += 100;
    await waitUntil(
      async () => new Date(String((await specOf(name)).renewTime)).getTime() === clock.t,
      10_000,
    );
    const renewed = await specOf(name);
    expect([
      renewed.holderIdentity,
      String(renewed.acquireTime),
      renewed.leaseTransitions,
      a.started(),
    ]).toEqual(['a', String(first.acquireTime), 0, 1]);
    expect(linesAt(lines, 'info', 'component', 'lease', 'identity')).toEqual([
      ['started leading', 'leader-election', `${namespace}/${name}`, 'a'],
    ]);
  });

  it('leads from the attempt that created the lease, not the next one', async () => {
    // the next attempt is a retry period away, far beyond the wait
    const a = startElector(freshLease(), 'a', { retryPeriodMs: 600_000 });
    await waitUntil(() => a.elector.isLeader(), 10_000);
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

  it('takes a released lease, or one that never named a holder, at once and without counting a transition', async () => {
    for (const holderIdentity of ['', undefined]) {
      const name = freshLease();
      await writeLease(name, {
        ...(holderIdentity === undefined ? {} : { holderIdentity }),
        leaseDurationSeconds: 10,
        renewTime: micro(Date.now()),
        leaseTransitions: 3,
      });
      const a = startElector(name, 'a', { now: stillClock().now });
      await waitUntil(() => a.elector.isLeader(), 10_000);
      const spec = await specOf(name);
      expect([spec.holderIdentity, spec.leaseTransitions]).toEqual(['a', 3]);
    }
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

  it('loses quietly to a replica whose write came first (409), and does not lead', async () => {
    const name = freshLease();
    await writeLease(name, heldBy(''));
    const { log: collecting, lines } = createCollectingLog();
    const clock = { reads: 0, held: false };
    // between its read of the released lease and its write, the elector's bytes are held while another
    // replica takes the lease: its write then carries a stale resourceVersion
    const a = startElector(name, 'a', {
      kubeConfig: proxied(),
      log: collecting,
      now: () => {
        clock.reads++;
        if (!clock.held && new Error().stack?.includes('acquireOrRenew')) {
          clock.held = true;
          proxy.hold();
        }
        return Date.now();
      },
    });
    await waitUntil(() => clock.held, 10_000);
    await writeLease(name, heldBy('b', { renewTime: Date.now() }));
    proxy.release();
    // attempts run one after the other: later ones mean the losing write has had its answer
    await attempts(clock, 6);
    expect([a.elector.isLeader(), a.started(), (await specOf(name)).holderIdentity]).toEqual([false, 0, 'b']);
    expect(linesAt(lines, 'warn')).toEqual([]);
  });

  it('logs and keeps trying when the API server refuses it, whichever request is refused', async () => {
    const name = freshLease();
    await writeLease(name, heldBy(''));
    for (const [account, verbs, refused] of [
      ['no-get', 'create,update', 'read'],
      ['no-update', 'get,create', 'write'],
    ] as const) {
      const { log: collecting, lines } = createCollectingLog();
      const clock = stillClock();
      const a = startElector(name, account, {
        kubeConfig: await allowedOnly(account, verbs),
        log: collecting,
        now: clock.now,
      });
      await waitUntil(() => linesAt(lines, 'warn').length >= 2, 10_000);
      const warned = lines
        .filter((l) => l.level === 'warn')
        .map((l) => JSON.stringify([l['@message'], (l.err as { code?: unknown } | undefined)?.code]));
      expect({ refused, warned: [...new Set(warned)] }).toEqual({
        refused,
        warned: [JSON.stringify(['lease not acquired or renewed', 403])],
      });
      await a.elector.stop();
      expect([a.elector.isLeader(), a.started(), (await specOf(name)).holderIdentity]).toEqual([
        false,
        0,
        '',
      ]);
    }
  });

  it('steps down once renewing has failed for longer than the renew deadline, and not before', async () => {
    const name = freshLease();
    const clock = stillClock();
    const { log: collecting, lines } = createCollectingLog();
    const a = startElector(name, 'a', { now: clock.now, log: collecting });
    await waitUntil(() => a.elector.isLeader(), 10_000);
    // another replica overwrote the lease: every renewal now finds a live holder that is not this one
    await writeLease(name, heldBy('b', { renewTime: clock.t, transitions: 1 }));
    await attempts(clock, 6);
    clock.t += 10_000;
    await attempts(clock, 6);
    expect([a.elector.isLeader(), a.stopped()]).toEqual([true, 0]);
    clock.t += 1;
    await waitUntil(() => !a.elector.isLeader(), 10_000);
    await attempts(clock, 6);
    expect([a.stopped(), (await specOf(name)).holderIdentity]).toEqual([1, 'b']);
    expect(linesAt(lines, 'error', 'component', 'identity')).toEqual([
      ['stopped leading: renew deadline passed', 'leader-election', 'a'],
    ]);
  });
});

describe('LeaderElector.stop', () => {
  it('leaves the lease alone when it stops without leading, or after another replica took the lease', async () => {
    const name = freshLease();
    await writeLease(name, heldBy('other'));
    const clock = stillClock();
    const follower = startElector(name, 'f', { now: clock.now });
    await attempts(clock, 6);
    await follower.elector.stop();
    expect((await specOf(name)).holderIdentity).toBe('other');

    const leaseB = freshLease();
    const leaderClock = stillClock();
    const a = startElector(leaseB, 'a', { now: leaderClock.now });
    await waitUntil(() => a.elector.isLeader(), 10_000);
    await writeLease(leaseB, heldBy('c', { transitions: 1 }));
    await attempts(leaderClock, 6);
    expect(a.elector.isLeader()).toBe(true);
    await a.elector.stop();
    expect([a.elector.isLeader(), (await specOf(leaseB)).holderIdentity]).toEqual([false, 'c']);
  });

  it('releases a lease that still names it after it stepped down', async () => {
    const name = freshLease();
    const clock = stillClock();
    const a = startElector(name, 'a', { kubeConfig: proxied(), now: clock.now });
    await waitUntil(() => a.elector.isLeader(), 10_000);
    // the API server out of reach past the renew deadline: the lease still names this replica
    proxy.cut();
    clock.t += 10_001;
    await waitUntil(() => !a.elector.isLeader(), 10_000);
    proxy.heal();
    await a.elector.stop();
    expect((await specOf(name)).holderIdentity).toBe('');
  });

  it('resolves and says so when the lease cannot be released; says nothing when the lease is gone', async () => {
    const name = freshLease();
    const { log: collecting, lines } = createCollectingLog();
    const a = startElector(name, 'a', { kubeConfig: proxied(), log: collecting });
    await waitUntil(() => a.elector.isLeader(), 10_000);
    proxy.cut();
    await a.elector.stop();
    // with the error that kept it (the attempt the cut broke may have warned too)
    const [, err] = linesAt(lines, 'warn', 'err').find(([message]) => message === 'lease not released') ?? [];
    expect(typeof (err as { message?: unknown } | undefined)?.message).toBe('string');
    expect((await specOf(name)).holderIdentity).toBe('a');
    proxy.heal();

    const gone = freshLease();
    const quiet = createCollectingLog();
    const b = startElector(gone, 'b', { log: quiet.log });
    await waitUntil(() => b.elector.isLeader(), 10_000);
    await api().deleteNamespacedLease({ namespace, name: gone });
    await b.elector.stop();
    expect(linesAt(quiet.lines, 'warn')).toEqual([]);
  });

  it('releases the lease when it comes while a renewal is between its read and its write', async () => {
    // `acquireOrRenew` reads the clock after its read of the lease and before its write: stopping there
    // puts the release's own read beside a renewal that is about to change the lease
    const name = freshLease();
    let stopping: Promise<void> | undefined;
    let armed = false;
    let clockReads = 0;
    const a: Started = startElector(name, 'a', {
      now: () => {
        clockReads++;
        if (armed && !stopping && new Error().stack?.includes('acquireOrRenew')) stopping = a.elector.stop();
        return Date.now();
      },
    });
    await waitUntil(() => a.elector.isLeader(), 10_000);
    armed = true;
    await waitUntil(() => stopping !== undefined, 10_000);
    await stopping;
    expect([a.elector.isLeader(), (await specOf(name)).holderIdentity]).toEqual([false, '']);
    // and no attempt after the one in flight: in the time a running elector makes several, none
    const reads = clockReads;
    const witness = stillClock();
    startElector(freshLease(), 'w', { now: witness.now });
    await attempts(witness, 12);
    expect(clockReads).toBe(reads);
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
