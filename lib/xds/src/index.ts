export {
  ADS_SERVICE_NAME,
  loadAdsServiceDefinition,
  loadAdsStreamMethod,
  type AdsStreamMethod,
} from './ads-service.js';
export { DuplicateResourceError, XDS_ERRORS, XdsClientClosedError } from './errors.js';
export { EMPTY_VERSION, computeVersion } from './snapshot.js';
export { encodeDiscoveryResponse, encodeResourceField } from './response-encoding.js';
export {
  createSotwServer,
  type SotwServer,
  type SotwServerListener,
  type SotwServerOptions,
} from './sotw-server.js';
export {
  createSotwClient,
  type AppliedFields,
  type SotwClient,
  type SotwClientOptions,
} from './sotw-client.js';
export {
  createXdsSubscription,
  type XdsSubscription,
  type XdsSubscriptionOptions,
} from './xds-subscription.js';
export { createChannelCredentials, type ClientTlsOptions, type ServerTlsOptions } from './tls-credentials.js';
export type {
  AnyMessage,
  ClientState,
  ClientTypeState,
  DiscoveryRequestMessage,
  DiscoveryResponseMessage,
  ReceivedResource,
  SotwServerEvents,
  XdsResource,
} from './types.js';
export { DISCOVERY_TYPES, buildServiceDiscovery, type ServiceEndpoint } from './service-discovery.js';
