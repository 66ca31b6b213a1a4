import { createLogger } from '@portcullis/kit';
import { createMessageCodec, type MessageCodec } from '@portcullis/protos';
import { createRateLimitClient, type Decision, type RateLimitClient } from '@portcullis/ratelimit-client';
import { waitUntil } from '@portcullis/testing';
import { createSotwServer, type SotwServer, type XdsResource } from '@portcullis/xds';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRlsServer, type RlsServer } from './rls-server.js';

const quietLog = createLogger({ level: 'fatal', format: 'json', destination: { write: () => undefined } });

const codec = (file: string, type: string): MessageCodec => createMessageCodec(file, type);
const listenerCodec = codec('envoy/config/listener/v3/listener.proto', 'envoy.config.listener.v3.Listener');
const hcmCodec = codec(
  'envoy/extensions/filters/network/http_connection_manager/v3/http_connection_manager.proto',
  'envoy.extensions.filters.network.http_connection_manager.v3.HttpConnectionManager',
);
const routerCodec = codec(
  'envoy/extensions/filters/http/router/v3/router.proto',
  'envoy.extensions.filters.http.router.v3.Router',
);
const routeCodec = codec('envoy/config/route/v3/route.proto', 'envoy.config.route.v3.RouteConfiguration');
const clusterCodec = codec('envoy/config/cluster/v3/cluster.proto', 'envoy.config.cluster.v3.Cluster');
const endpointCodec = codec(
  'envoy/config/endpoint/v3/endpoint.proto',
  'envoy.config.endpoint.v3.ClusterLoadAssignment',
);
const ads = { ads: {}, resourceApiVersion: 'V3' };
const named = (c: MessageCodec, name: string, message: Record<string, unknown>): XdsResource => ({
  name,
  value: c.encode({ name, ...message }),
});

/**
 * The operator's service discovery (`buildServiceDiscovery`, operator/src/reconcile), cut down to one
 * service: API listener → route configuration → EDS cluster → endpoints. lib/ never imports the operator.
 */
function serveDiscovery(xds: SotwServer, service: string, ports: readonly number[]): void {
  const hcm = {
    rds: { configSource: ads, routeConfigName: `${service}-route` },
    // protobufjs defines google.protobuf.Any itself, with the snake_case `type_url`
    httpFilters: [
      { name: 'router', typedConfig: { type_url: routerCodec.typeUrl, value: routerCodec.encode({}) } },
    ],
  };
  xds.setResources(listenerCodec.typeUrl, [
    named(listenerCodec, service, {
      apiListener: { apiListener: { type_url: hcmCodec.typeUrl, value: hcmCodec.encode(hcm) } },
    }),
  ]);
  xds.setResources(routeCodec.typeUrl, [
    named(routeCodec, `${service}-route`, {
      virtualHosts: [
        {
          name: service,
          domains: ['*'],
          routes: [{ match: { prefix: '' }, route: { cluster: `${service}-cluster` } }],
        },
      ],
    }),
  ]);
  xds.setResources(clusterCodec.typeUrl, [
    named(clusterCodec, `${service}-cluster`, {
      type: 'EDS',
      lbPolicy: 'ROUND_ROBIN',
      edsClusterConfig: { edsConfig: ads, serviceName: `${service}-endpoints` },
    }),
  ]);
  xds.setResources(endpointCodec.typeUrl, [
    {
      name: `${service}-endpoints`,
      value: endpointCodec.encode({
        clusterName: `${service}-endpoints`,
        endpoints: [
          {
            locality: { region: 'cluster', zone: 'any' },
            loadBalancingWeight: { value: 1 },
            lbEndpoints: ports.map((portValue) => ({
              endpoint: { address: { socketAddress: { address: '127.0.0.1', portValue } } },
            })),
          },
        ],
      }),
    },
  ]);
}

describe('an xds:///ratelimit target resolved through a SotwServer', () => {
  let xds: SotwServer;
  let replicas: RlsServer[];
  let client: RateLimitClient;

  beforeAll(async () => {
    replicas = [await startRlsServer(), await startRlsServer()];
    xds = createSotwServer({ host: '127.0.0.1', port: 0, log: quietLog, shutdownGraceMs: 100 });
    await xds.start();
    serveDiscovery(
      xds,
      'ratelimit',
      replicas.map((r) => r.port),
    );
    client = createRateLimitClient({
      target: 'xds:///ratelimit',
      xds: { serverUri: `127.0.0.1:${xds.port}`, nodeId: 'gateway-test' },
      timeoutMs: 5000,
      failureMode: 'deny',
      log: quietLog,
    });
  });
  afterAll(async () => {
    client.close();
    await xds.close();
    for (const r of replicas) r.stop();
  });

  it('decides through the endpoints the xDS server handed out, balancing over both', async () => {
    const decisions: Decision[] = [];
    // round robin picks among the subchannels that are ready, so the second joins a moment later
    await waitUntil(async () => {
      decisions.push(
        await client.decide({
          domain: 'web',
          descriptors: [{ entries: [{ key: 'user', value: 'blocked' }] }],
        }),
      );
      return replicas.every((r) => r.requests.length > 0);
    });
    expect(decisions.every((d) => d.overLimit && !d.allowed && !d.failedOpen)).toBe(true);
    expect(xds.clients().map((c) => c.nodeId)).toEqual(['gateway-test']);
    expect(client.stats()).toMatchObject({ calls: decisions.length, failures: 0 });
  });
});
