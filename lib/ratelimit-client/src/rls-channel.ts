import { Client, type ChannelOptions, type GrpcObject, type ServiceClientConstructor } from '@grpc/grpc-js';
import { register as registerXdsResolver } from '@grpc/grpc-js-xds';
import { PROTO_FILES, loadGrpcObject } from '@portcullis/protos';
import { createChannelCredentials } from '@portcullis/xds';
import type { GrpcRateLimitRequest, GrpcRateLimitResponse } from './grpc-codec.js';
import type { RateLimitClientOptions } from './types.js';

/** `ShouldRateLimit` with the message shapes of `grpc-codec.ts`. */
export interface ShouldRateLimitMethod {
  path: string;
  serialize: (request: GrpcRateLimitRequest) => Buffer;
  deserialize: (bytes: Buffer) => GrpcRateLimitResponse;
}

/**
 * A service that was just restarted should be found within seconds, not after grpc-js's default 120 s
 * backoff: until then every call is answered by the failure mode.
 */
const MAX_RECONNECT_BACKOFF_MS = 5000;

/**
 * grpc-js-xds reads its bootstrap from this channel option before the process-wide `GRPC_XDS_BOOTSTRAP`
 * (file) / `GRPC_XDS_BOOTSTRAP_CONFIG` (JSON) environment variables. Despite the name it is how a library
 * can take the bootstrap as an argument (settings travel as arguments; only `settings.ts` touches the
 * environment) and how two clients in one process can use different xDS servers or node ids; the variables
 * work too when `xds` is left out.
 */
const XDS_BOOTSTRAP_OPTION = 'grpc.TEST_ONLY_DO_NOT_USE_IN_PROD.xds_bootstrap_config';

let method: ShouldRateLimitMethod | undefined;
let xdsRegistered = false;

export function isXdsTarget(target: string): boolean {
  return target.startsWith('xds:');
}

/** `envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit`, loaded from @portcullis/protos once. */
export function loadShouldRateLimitMethod(): ShouldRateLimitMethod {
  if (method) return method;
  const root = loadGrpcObject([PROTO_FILES.rateLimitService]);
  const pkg = ((root.envoy as GrpcObject).service as GrpcObject).ratelimit as GrpcObject;
  const definition = ((pkg.v3 as GrpcObject).RateLimitService as ServiceClientConstructor).service
    .ShouldRateLimit;
  if (!definition) throw new Error(`${PROTO_FILES.rateLimitService}: no ShouldRateLimit method`);
  method = {
    path: definition.path,
    serialize: (request) => definition.requestSerialize(request),
    // proto-loader's definitions are untyped (`MethodDefinition<any, any>`); the loader options fix the shape
    deserialize: (bytes) => definition.responseDeserialize(bytes) as GrpcRateLimitResponse,
  };
  return method;
}

function toChannelOptions(o: Pick<RateLimitClientOptions, 'xds'>): ChannelOptions {
  const options: ChannelOptions = { 'grpc.max_reconnect_backoff_ms': MAX_RECONNECT_BACKOFF_MS };
  if (o.xds) {
    options[XDS_BOOTSTRAP_OPTION] = JSON.stringify({
      xds_servers: [
        { server_uri: o.xds.serverUri, channel_creds: [{ type: 'insecure' }], server_features: ['xds_v3'] },
      ],
      node: { id: o.xds.nodeId, locality: {} },
    });
  }
  return options;
}

/**
 * A channel to `target`, over TLS with `tls`; registers the `xds:` resolver with grpc-js the first time it is
 * needed. Reads the certificate files now, so a missing one fails start-up naming it.
 */
export function createRlsChannel(o: Pick<RateLimitClientOptions, 'target' | 'xds' | 'tls'>): Client {
  if (isXdsTarget(o.target) && !xdsRegistered) {
    registerXdsResolver();
    xdsRegistered = true;
  }
  const { credentials, options } = createChannelCredentials(o.tls);
  return new Client(o.target, credentials, { ...toChannelOptions(o), ...options });
}
