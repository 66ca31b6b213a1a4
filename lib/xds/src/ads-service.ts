import type { GrpcObject, MethodDefinition, ServiceClientConstructor } from '@grpc/grpc-js';
import { PROTO_FILES, loadGrpcObject } from '@portcullis/protos';
import type { DiscoveryRequestMessage, DiscoveryResponseMessage } from './types.js';

export const ADS_SERVICE_NAME = 'envoy.service.discovery.v3.AggregatedDiscoveryService';

export type AdsStreamMethod = MethodDefinition<DiscoveryRequestMessage, DiscoveryResponseMessage>;

let loaded: ServiceClientConstructor | undefined;

/**
 * `envoy.service.discovery.v3.AggregatedDiscoveryService` from the protos shipped in @grpc/grpc-js-xds,
 * loaded once per process. `.service` is what a server adds; the constructor is a client.
 */
export function loadAdsServiceDefinition(): ServiceClientConstructor {
  if (!loaded) {
    let node: GrpcObject = loadGrpcObject([PROTO_FILES.aggregatedDiscovery]);
    for (const part of ['envoy', 'service', 'discovery', 'v3']) node = node[part] as GrpcObject;
    loaded = node.AggregatedDiscoveryService as ServiceClientConstructor;
  }
  return loaded;
}

/** `StreamAggregatedResources`: path and (de)serializers, for `Client.makeBidiStreamRequest`. */
export function loadAdsStreamMethod(): AdsStreamMethod {
  // ads.proto declares the method, so the lookup cannot miss
  return loadAdsServiceDefinition().service.StreamAggregatedResources as AdsStreamMethod;
}
