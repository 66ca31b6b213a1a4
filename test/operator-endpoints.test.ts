import { join } from 'node:path';
import { CoreV1Api, DiscoveryV1Api } from '@kubernetes/client-node';
import { createMessageCodec } from '@portcullis/protos';
import { createSotwClient, type SotwClient } from '@portcullis/xds';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startOperator, type OperatorApp } from '../operator/src/app.js';
import { loadSettings } from '../operator/src/settings.js';
import { startKubeApiServer, type KubeApiServer } from './kube-apiserver/index.js';
import { waitUntil, quietLog as log } from '@portcullis/testing';

const eds = createMessageCodec(
  'envoy/config/endpoint/v3/endpoint.proto',
  'envoy.config.endpoint.v3.ClusterLoadAssignment',
);

interface Assignment {
  clusterName?: string;
  endpoints?: Array<{
    lbEndpoints?: Array<{
      endpoint?: { address?: { socketAddress?: { address?: string; portValue?: number } } };
    }>;
  }>;
}

describe('operator: xds:///ratelimit endpoints from EndpointSlices', () => {
  let api: KubeApiServer;
  let operator: OperatorApp;
  let client: SotwClient;
  let addresses: string[] = [];

  const slice = (ready: Record<string, boolean>) => ({
    metadata: {
      name: 'portcullis-ratelimit-abc',
      namespace: 'portcullis-system',
      labels: { 'kubernetes.io/service-name': 'portcullis-ratelimit' },
    },
    addressType: 'IPv4',
    ports: [
      { name: 'http', port: 8080, protocol: 'TCP' },
      { name: 'grpc', port: 8081, protocol: 'TCP' },
    ],
    endpoints: Object.entries(ready).map(([ip, isReady]) => ({
      addresses: [ip],
      conditions: { ready: isReady },
    })),
  });

  beforeAll(async () => {
    api = await startKubeApiServer({ crdDirs: [join(import.meta.dirname, '../crds')] });
    await api
      .kubeConfig()
      .makeApiClient(CoreV1Api)
      .createNamespace({ body: { metadata: { name: 'portcullis-system' } } });
    await api
      .kubeConfig()
      .makeApiClient(DiscoveryV1Api)
      .createNamespacedEndpointSlice({
        namespace: 'portcullis-system',
        body: slice({ '10.0.0.1': true, '10.0.0.2': false }),
      });
    operator = await startOperator(
      loadSettings({
        OPERATOR_SOURCE: 'kubernetes',
        OPERATOR_NAMESPACE: 'portcullis-system',
        LEADER_ELECTION: 'false',
        XDS_HOST: '127.0.0.1',
        XDS_PORT: '0',
        HEALTH_PORT: '0',
        METRICS_PORT: '0',
      }),
      { log, kubeConfig: api.kubeConfig() },
    );
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
  });
  afterAll(async () => {
    await client.close();
    await operator.close();
    await api.close();
  });

  it('hands out the ready endpoints on the grpc port', () => {
    expect(addresses).toEqual(['10.0.0.1:8081']);
  });

  it('follows the EndpointSlice as pods become ready', async () => {
    await api
      .kubeConfig()
      .makeApiClient(DiscoveryV1Api)
      .replaceNamespacedEndpointSlice({
        namespace: 'portcullis-system',
        name: 'portcullis-ratelimit-abc',
        body: {
          ...slice({ '10.0.0.1': true, '10.0.0.2': true, '10.0.0.3': true }),
          metadata: {
            ...slice({}).metadata,
            resourceVersion: (
              await api.kubeConfig().makeApiClient(DiscoveryV1Api).readNamespacedEndpointSlice({
                namespace: 'portcullis-system',
                name: 'portcullis-ratelimit-abc',
              })
            ).metadata?.resourceVersion,
          },
        },
      });
    await waitUntil(() => addresses.length === 3);
    expect(addresses).toEqual(['10.0.0.1:8081', '10.0.0.2:8081', '10.0.0.3:8081']);
  });
});
