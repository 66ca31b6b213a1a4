import { CoordinationV1Api } from '@kubernetes/client-node';
import { quietLog as log, startControlPlane, waitUntil, type ControlPlane } from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LeaderElector, type LeaderElectionOptions } from '../src/leader-election.js';

let cp: ControlPlane;

beforeAll(async () => {
  cp = await startControlPlane();
}, 180_000);

afterAll(async () => {
  await cp.close();
}, 60_000);

const namespace = 'default';
const holderOf = async (name: string): Promise<string | undefined> =>
  (await cp.kubeConfig().makeApiClient(CoordinationV1Api).readNamespacedLease({ namespace, name })).spec
    ?.holderIdentity;

function elector(leaseName: string, identity: string, o: Partial<LeaderElectionOptions> = {}): LeaderElector {
  return new LeaderElector({
    kubeConfig: cp.kubeConfig(),
    namespace,
    leaseName,
    identity,
    leaseDurationMs: 15_000,
    renewDeadlineMs: 10_000,
    retryPeriodMs: 50,
    log,
    onStartedLeading: () => undefined,
    onStoppedLeading: () => undefined,
    ...o,
  });
}

describe('LeaderElector.stop', () => {
  it('releases the lease when it comes while a renewal is between its read and its write', async () => {
    // `acquireOrRenew` reads the clock after its read of the lease and before its write: stopping there
    // puts the release's own read beside a renewal that is about to change the lease
    let stopping: Promise<void> | undefined;
    let armed = false;
    const a: LeaderElector = elector('renewal-in-flight', 'a', {
      now: () => {
        if (armed && !stopping && new Error().stack?.includes('acquireOrRenew')) stopping = a.stop();
        return Date.now();
      },
    });
    a.start();
    await waitUntil(() => a.isLeader(), 10_000);
    armed = true;
    await waitUntil(() => stopping !== undefined, 10_000);
    await stopping;
    expect([a.isLeader(), await holderOf('renewal-in-flight')]).toEqual([false, '']);
  });

  it('does not start leading when the lease is taken by an attempt that was in flight at the stop', async () => {
    let started = 0;
    let stopping: Promise<void> | undefined;
    const a: LeaderElector = elector('taken-while-stopping', 'a', {
      onStartedLeading: () => started++,
      // the first attempt finds no lease; the stop comes before it creates one
      now: () => {
        stopping ??= a.stop();
        return Date.now();
      },
    });
    a.start();
    await waitUntil(() => stopping !== undefined, 10_000);
    await stopping;
    expect([started, a.isLeader(), await holderOf('taken-while-stopping')]).toEqual([0, false, '']);
  });
});
