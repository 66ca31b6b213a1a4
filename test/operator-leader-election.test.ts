import { join } from 'node:path';
import { CoordinationV1Api, V1MicroTime, type KubeConfig } from '@kubernetes/client-node';
import {
  quietLog as log,
  startControlPlane,
  waitFor,
  waitUntil,
  type ControlPlane,
} from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOperator, type OperatorApp } from '@portcullis/operator';
import { applyOperatorRbac } from './operator-rbac.js';
import { OPERATOR_NAMESPACE, operatorSettings, REPO, WAIT_MS } from './operator-stack.js';

/** Two replicas contending for the real Lease, each with the chart's ServiceAccount. */
describe('operator leader election', () => {
  let cp: ControlPlane;
  let operatorKubeConfig: KubeConfig;
  let leaseName = '';
  const replicas: OperatorApp[] = [];

  const start = (name: string): Promise<OperatorApp> =>
    startOperator(
      operatorSettings({
        POD_NAME: name,
        LEADER_ELECTION_LEASE_DURATION: '1s',
        LEADER_ELECTION_RENEW_DEADLINE: '800ms',
        LEADER_ELECTION_RETRY_PERIOD: '100ms',
      }),
      { log, kubeConfig: operatorKubeConfig },
    );
  const leases = (): CoordinationV1Api => cp.kubeConfig().makeApiClient(CoordinationV1Api);
  const readLease = () => leases().readNamespacedLease({ namespace: OPERATOR_NAMESPACE, name: leaseName });
  const holder = async (): Promise<string | undefined> => (await readLease()).spec?.holderIdentity;

  beforeAll(async () => {
    cp = await startControlPlane({ crds: [join(REPO, 'crds')] });
    const identity = await applyOperatorRbac(cp, OPERATOR_NAMESPACE);
    operatorKubeConfig = identity.kubeConfig;
    // the chart names the Lease after the operator (LEADER_ELECTION_LEASE)
    leaseName = identity.serviceAccount;
    replicas.push(await start('replica-a'));
    await waitUntil(() => replicas[0]?.isLeader() === true, WAIT_MS);
    replicas.push(await start('replica-b'));
  }, 180_000);
  afterAll(async () => {
    for (const r of replicas) await r.close();
    await cp.close();
  }, 60_000);

  it('has exactly one leader while it renews, with microsecond times, and every replica serves xDS', async () => {
    const seen = new Set<string>();
    // several renewals by the leader, with the other replica trying every retry period meanwhile
    await waitFor(
      async () => {
        expect(replicas.map((r) => r.isLeader())).toEqual([true, false]);
        // client-node 1.4 hands MicroTime fields back as the server's strings, whatever their type says
        seen.add(String((await readLease()).spec?.renewTime));
        return seen.size;
      },
      (n) => n >= 5,
      { timeoutMs: WAIT_MS },
    );
    expect(await holder()).toBe('replica-a');
    const times = await cp.kubectl([
      'get',
      'lease',
      leaseName,
      '--namespace',
      OPERATOR_NAMESPACE,
      '-o',
      'jsonpath={.spec.acquireTime} {.spec.renewTime} {.spec.leaseDurationSeconds}',
    ]);
    expect(times).toMatch(
      /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z 1$/,
    );
    expect(replicas.every((r) => r.ports.xds > 0)).toBe(true);
  });

  it('hands over at once when the leader shuts down and releases the lease', async () => {
    const transitions = (await readLease()).spec?.leaseTransitions ?? 0;
    await replicas[0]?.close();
    await waitUntil(() => replicas[1]?.isLeader() === true, WAIT_MS);
    // a released lease (no holder) is taken without a transition; one taken from an expired holder counts
    // one, so this tells a release from a wait for expiry whatever the machine's speed
    expect([await holder(), (await readLease()).spec?.leaseTransitions]).toEqual(['replica-b', transitions]);
  });

  it('waits out a holder that stopped renewing, then takes the lease over', async () => {
    const at = { namespace: OPERATOR_NAMESPACE, name: leaseName };
    const lease = await readLease();
    const transitions = lease.spec?.leaseTransitions ?? 0;
    // a replica that crashed right after renewing: it holds the lease and will never renew again
    lease.spec = { ...lease.spec, holderIdentity: 'crashed', renewTime: new V1MicroTime() };
    await leases().replaceNamespacedLease({ ...at, body: lease });
    let stepDown = false;
    await waitUntil(() => {
      if (replicas[1]?.isLeader() === false) stepDown = true;
      return stepDown;
    }, WAIT_MS);
    expect(await holder()).toBe('crashed');
    await waitUntil(async () => (await holder()) === 'replica-b', WAIT_MS);
    // the elector marks itself leader once its write's answer is back, which may come after our read
    await waitUntil(() => replicas[1]?.isLeader() === true, WAIT_MS);
    expect((await readLease()).spec?.leaseTransitions).toBe(transitions + 1);
  });
});
