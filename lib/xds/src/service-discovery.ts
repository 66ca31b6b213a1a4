import { createMessageCodec, type MessageCodec } from '@portcullis/protos';
import type { XdsResource } from './types.js';

/** One ready address of a service. */
export interface ServiceEndpoint {
  address: string;
  port: number;
}

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

export const DISCOVERY_TYPES = [
  listenerCodec.typeUrl,
  routeCodec.typeUrl,
  clusterCodec.typeUrl,
  endpointCodec.typeUrl,
];

const ads = { ads: {}, resourceApiVersion: 'V3' };

/**
 * What a gRPC xDS client (`@grpc/grpc-js-xds`, grpc-go, Envoy) needs to resolve `xds:///<service>` and
 * balance over its endpoints: an API listener, its route configuration, an EDS cluster and the
 * endpoints, one set per service. Resources are named `<service>`, `<service>-route`,
 * `<service>-cluster` and `<service>-endpoints`.
 */
export function buildServiceDiscovery(
  services: ReadonlyMap<string, readonly ServiceEndpoint[]>,
): Map<string, XdsResource[]> {
  const out = new Map<string, XdsResource[]>(DISCOVERY_TYPES.map((t) => [t, []]));
  const add = (c: MessageCodec, name: string, message: Record<string, unknown>): void => {
    out.get(c.typeUrl)?.push({ name, value: c.encode({ ...message }) });
  };
  for (const [service, endpoints] of [...services].sort(([a], [b]) => a.localeCompare(b))) {
    const hcm = {
      rds: { configSource: ads, routeConfigName: `${service}-route` },
      httpFilters: [
        { name: 'router', typedConfig: { type_url: routerCodec.typeUrl, value: routerCodec.encode({}) } },
      ],
    };
    add(listenerCodec, service, {
      name: service,
      apiListener: { apiListener: { type_url: hcmCodec.typeUrl, value: hcmCodec.encode(hcm) } },
    });
    add(routeCodec, `${service}-route`, {
      name: `${service}-route`,
      virtualHosts: [
        {
          name: service,
          domains: ['*'],
          routes: [{ match: { prefix: '' }, route: { cluster: `${service}-cluster` } }],
        },
      ],
    });
    add(clusterCodec, `${service}-cluster`, {
      name: `${service}-cluster`,
      type: 'EDS',
      lbPolicy: 'ROUND_ROBIN',
      edsClusterConfig: { edsConfig: ads, serviceName: `${service}-endpoints` },
    });
    add(endpointCodec, `${service}-endpoints`, {
      clusterName: `${service}-endpoints`,
      endpoints: [
        {
          locality: { region: 'cluster', zone: 'any' },
          loadBalancingWeight: { value: 1 },
          lbEndpoints: [...endpoints]
            .sort((a, b) => `${a.address}:${a.port}`.localeCompare(`${b.address}:${b.port}`))
            .map((e) => ({
              endpoint: { address: { socketAddress: { address: e.address, portValue: e.port } } },
            })),
        },
      ],
    });
  }
  return out;
}
