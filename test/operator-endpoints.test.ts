import { join } from 'node:path';
import { createMessageCodec } from '@portcullis/protos';
import { quietLog as log, startControlPlane, waitFor, type ControlPlane } from '@portcullis/testing';
import { createSotwClient, type SotwClient } from '@portcullis/xds';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOperator, type OperatorApp } from '@portcullis/operator';
import { applyOperatorRbac } from './operator-rbac.js';
import { OPERATOR_NAMESPACE, operatorSettings, REPO, WAIT_MS } from './operator-stack.js';

const eds = createMessageCodec(
  'envoy/config/endpoint/v3/endpoint.proto',
  'envoy.config.endpoint.v3.ClusterLoadAssignment',
);

interface Assignment {
  endpoints?: Array<{
    lbEndpoints?: Array<{
      endpoint?: { address?: { socketAddress?: { address?: string; portValue?: number } } };
    }>;
  }>;
}

const SERVICE = 'portcullis-ratelimit';

/** An endpoint as the EndpointSlice controller writes it for a Pod of the Service. */
interface PodEndpoint {
  ip: string;
  ready: boolean;
  terminating?: boolean;
}

/**
 * An EndpointSlice shaped as kube-controller-manager's EndpointSlice controller writes it for the chart's
 * rate-limit Service: its labels, owner, IPv4, every Service port by name, a Pod target and the ready,
 * serving and terminating conditions per endpoint. No controller runs here, so the test writes them.
 */
function endpointSlice(o: { name: string; service: string; serviceUid: string; endpoints: PodEndpoint[] }) {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      name: o.name,
      namespace: OPERATOR_NAMESPACE,
      labels: {
        'kubernetes.io/service-name': o.service,
        'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io',
      },
      ownerReferences: [
        {
          apiVersion: 'v1',
          kind: 'Service',
          name: o.service,
          uid: o.serviceUid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    addressType: 'IPv4',
    ports: [
      { name: 'http', port: 8080, protocol: 'TCP' },
      { name: 'grpc', port: 8081, protocol: 'TCP', appProtocol: 'grpc' },
    ],
    endpoints: o.endpoints.map((e, i) => ({
      addresses: [e.ip],
      conditions: {
        ready: e.ready,
        serving: e.ready || e.terminating === true,
        terminating: e.terminating ?? false,
      },
      nodeName: 'node-0',
      targetRef: {
        kind: 'Pod',
        namespace: OPERATOR_NAMESPACE,
        name: `${o.service}-${o.name}-${i}`,
        uid: `uid-${e.ip}`,
      },
    })),
  };
}

describe('operator: xds:///ratelimit endpoints from EndpointSlices', () => {
  let cp: ControlPlane;
  let operator: OperatorApp;
  let client: SotwClient;
  let addresses: string[] = [];
  const uids = new Map<string, string>();

  /** Creates the Service (as the chart renders its ports) and remembers its uid for the slices' owner. */
  const createService = async (name: string): Promise<void> => {
    const out = await cp.kubectl(
      ['apply', '--namespace', OPERATOR_NAMESPACE, '-o', 'jsonpath={.metadata.uid}', '-f', '-'],
      {
        input: JSON.stringify({
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name },
          spec: {
            ports: [
              { name: 'http', port: 8080, targetPort: 'http' },
              { name: 'grpc', port: 8081, targetPort: 'grpc', appProtocol: 'grpc' },
            ],
          },
        }),
      },
    );
    uids.set(name, out);
  };
  const applySlice = (name: string, endpoints: PodEndpoint[], service = SERVICE): Promise<string> =>
    cp.kubectl(['apply', '-f', '-'], {
      input: JSON.stringify(endpointSlice({ name, service, serviceUid: uids.get(service) ?? '', endpoints })),
    });
  const expectAddresses = async (expected: string[]): Promise<void> => {
    await waitFor(
      () => Promise.resolve([...addresses].sort()),
      (a) => JSON.stringify(a) === JSON.stringify(expected),
      { timeoutMs: WAIT_MS },
    );
  };

  beforeAll(async () => {
    cp = await startControlPlane({ crds: [join(REPO, 'crds')] });
    const { kubeConfig } = await applyOperatorRbac(cp, OPERATOR_NAMESPACE);
    await createService(SERVICE);
    await createService('something-else');
    await applySlice(`${SERVICE}-7xk2p`, [
      { ip: '10.0.0.1', ready: true },
      { ip: '10.0.0.2', ready: false },
    ]);
    operator = await startOperator(operatorSettings({ LEADER_ELECTION: 'false' }), { log, kubeConfig });
    client = createSotwClient({
      serverUrl: `127.0.0.1:${operator.ports.xds}`,
      nodeId: 'gateway-0',
      typeUrls: [eds.typeUrl],
      retryIntervalMs: 100,
      log,
      onResources: (_t, _v, resources) => {
        addresses = resources.flatMap((r) =>
          ((eds.decode(r.value) as Assignment).endpoints ?? []).flatMap((e) =>
            (e.lbEndpoints ?? []).map(
              (l) =>
                `${l.endpoint?.address?.socketAddress?.address}:${l.endpoint?.address?.socketAddress?.portValue}`,
            ),
          ),
        );
      },
    });
    client.start();
    await client.firstUpdate();
  }, 180_000);
  afterAll(async () => {
    await client.close();
    await operator.close();
    await cp.close();
  }, 60_000);

  it('hands out the ready endpoints on the grpc port', () => {
    expect(addresses).toEqual(['10.0.0.1:8081']);
  });

  it('follows the EndpointSlice as pods become ready', async () => {
    await applySlice(`${SERVICE}-7xk2p`, [
      { ip: '10.0.0.1', ready: true },
      { ip: '10.0.0.2', ready: true },
      { ip: '10.0.0.3', ready: true },
    ]);
    await expectAddresses(['10.0.0.1:8081', '10.0.0.2:8081', '10.0.0.3:8081']);
  });

  it('joins every slice of the Service, leaves out terminating pods, and ignores other Services', async () => {
    await applySlice(`${SERVICE}-q9d4m`, [
      { ip: '10.0.1.1', ready: true },
      { ip: '10.0.1.2', ready: false, terminating: true },
    ]);
    await applySlice('something-else-b2c3d', [{ ip: '10.0.9.9', ready: true }], 'something-else');
    await expectAddresses(['10.0.0.1:8081', '10.0.0.2:8081', '10.0.0.3:8081', '10.0.1.1:8081']);
  });

  it('drops the endpoints of a deleted slice', async () => {
    await cp.kubectl(['delete', 'endpointslice', `${SERVICE}-7xk2p`, '--namespace', OPERATOR_NAMESPACE]);
    await expectAddresses(['10.0.1.1:8081']);
  });
});
