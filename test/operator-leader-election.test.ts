import { join } from 'node:path';
import { CoordinationV1Api, CoreV1Api, V1MicroTime } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOperator, type OperatorApp } from '../operator/src/app.js';
import { loadSettings } from '../operator/src/settings.js';
import { startKubeApiServer, type KubeApiServer } from './kube-apiserver/index.js';
import { waitUntil, quietLog as log } from '@portcullis/testing';

describe('operator leader election', () => {
  let api: KubeApiServer;
  const replicas: OperatorApp[] = [];

  const start = (name: string) =>
    startOperator(
      loadSettings({
        OPERATOR_SOURCE: 'kubernetes',
        OPERATOR_NAMESPACE: 'portcullis-system',
        POD_NAME: name,
        XDS_HOST: '127.0.0.1',
        XDS_PORT: '0',
        HEALTH_PORT: '0',
        METRICS_PORT: '0',
        LEADER_ELECTION_LEASE_DURATION: '1s',
        LEADER_ELECTION_RENEW_DEADLINE: '800ms',
        LEADER_ELECTION_RETRY_PERIOD: '100ms',
      }),
      { log, kubeConfig: api.kubeConfig() },
    );
  const holder = async (): Promise<string | undefined> =>
    (
      await api
        .kubeConfig()
        .makeApiClient(CoordinationV1Api)
        .readNamespacedLease({ namespace: 'portcullis-system', name: 'portcullis-operator' })
    ).spec?.holderIdentity;

  beforeAll(async () => {
    api = await startKubeApiServer({ crdDirs: [join(import.meta.dirname, '../crds')] });
    await api
      .kubeConfig()
      .makeApiClient(CoreV1Api)
      .createNamespace({ body: { metadata: { name: 'portcullis-system' } } });
    replicas.push(await start('replica-a'));
    await waitUntil(() => replicas[0]?.isLeader() === true);
    replicas.push(await start('replica-b'));
  });
  afterAll(async () => {
    for (const r of replicas) await r.close();
    await api.close();
  });

  it('has exactly one leader, and every replica serves xDS', async () => {
    await new Promise((r) => setTimeout(r, 300));
    expect(replicas.map((r) => r.isLeader())).toEqual([true, false]);
    expect(await holder()).toBe('replica-a');
    expect(replicas.every((r) => r.ports.xds > 0)).toBe(true);
  });

  it('hands over at once when the leader shuts down and releases the lease', async () => {
    await replicas[0]?.close();
    await waitUntil(() => replicas[1]?.isLeader() === true);
    expect(await holder()).toBe('replica-b');
  });

  it('waits out a holder that stopped renewing, then takes the lease over', async () => {
    const leases = api.kubeConfig().makeApiClient(CoordinationV1Api);
    const at = { namespace: 'portcullis-system', name: 'portcullis-operator' };
    const lease = await leases.readNamespacedLease(at);
    const transitions = lease.spec?.leaseTransitions ?? 0;
    // a replica that crashed right after renewing: it holds the lease and will never renew again
    lease.spec = { ...lease.spec, holderIdentity: 'crashed', renewTime: new V1MicroTime() };
    await leases.replaceNamespacedLease({ ...at, body: lease });
    let stepDown = false;
    await waitUntil(() => {
      if (replicas[1]?.isLeader() === false) stepDown = true;
      return stepDown;
    });
    expect(await holder()).toBe('crashed');
    await waitUntil(async () => (await holder()) === 'replica-b');
    expect(replicas[1]?.isLeader()).toBe(true);
    expect((await leases.readNamespacedLease(at)).spec?.leaseTransitions).toBe(transitions + 1);
  });
});
