import {
  Server,
  type GrpcObject,
  type ServerUnaryCall,
  type ServiceClientConstructor,
  type sendUnaryData,
} from '@grpc/grpc-js';
import { withCallerContext, type Health, type Logger, type RunningServer } from '@portcullis/kit';
import { PROTO_FILES, loadGrpcObject, type LoadOptions } from '@portcullis/protos';
import type { RateLimitService } from '../service.js';
import type { Settings } from '../settings.js';
import type { Stats } from '../stats/stats.js';
import { toGrpcStatus } from './error-mapper.js';
import { fromGrpcRequest, toGrpcResponse, type GrpcRateLimitRequest } from './grpc-codec.js';
import { addHealthService } from './grpc-health.js';
import { createGrpcServerCredentials, requireClientSan } from './grpc-tls.js';

export interface GrpcServerOptions extends Readonly<Settings['grpc']> {
  service: RateLimitService;
  stats: Stats;
  health: Health;
  log: Logger;
}

/** How long a graceful shutdown waits for calls in flight before cutting them. */
const DRAIN_TIMEOUT_MS = 5000;

export function loadRateLimitServiceDefinition(o: Pick<LoadOptions, 'longs'> = {}): ServiceClientConstructor {
  const root = loadGrpcObject([PROTO_FILES.rateLimitService], o);
  const pkg = ((root.envoy as GrpcObject).service as GrpcObject).ratelimit as GrpcObject;
  return (pkg.v3 as GrpcObject).RateLimitService as ServiceClientConstructor;
}

/** `envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit` and `grpc.health.v1.Health`. */
export async function startGrpcServer(o: GrpcServerOptions): Promise<RunningServer> {
  const log = o.log.child({ component: 'grpc' });
  const tls = await createGrpcServerCredentials(o.tls, log);
  const server = new Server({
    // 0 is "no limit", as in upstream's Go server; grpc-js would close every connection at once
    ...(o.maxConnectionAgeMs > 0 ? { 'grpc.max_connection_age_ms': o.maxConnectionAgeMs } : {}),
    ...(o.maxConnectionAgeGraceMs > 0
      ? { 'grpc.max_connection_age_grace_ms': o.maxConnectionAgeGraceMs }
      : {}),
    interceptors: o.tls.enabled && o.tls.clientSan ? [requireClientSan(o.tls.clientSan)] : [],
  });
  const healthService = addHealthService(server, o.health);
  const callStats = o.stats.call('ShouldRateLimit');
  server.addService(loadRateLimitServiceDefinition({ longs: String }).service, {
    ShouldRateLimit(call: ServerUnaryCall<GrpcRateLimitRequest, object>, callback: sendUnaryData<object>) {
      const started = performance.now();
      withCallerContext(call.metadata.getMap(), async () =>
        o.service.shouldRateLimit(fromGrpcRequest(call.request)),
      )
        .then(
          (response) => callback(null, toGrpcResponse(response)),
          (err: unknown) => {
            const status = toGrpcStatus(err);
            log.warn({ err, domain: call.request.domain, grpcCode: status.code }, 'ShouldRateLimit failed');
            callback(status);
          },
        )
        .finally(() => callStats.record(performance.now() - started));
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${o.host}:${o.port}`, tls.credentials, (err, bound) =>
      err ? reject(err) : resolve(bound),
    ),
  );
  log.info(
    { host: o.host, port, tls: o.tls.enabled, mtls: o.tls.enabled && o.tls.clientCaCert !== '' },
    'gRPC listening',
  );
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        healthService.close();
        tls.close();
        const force = setTimeout(() => server.forceShutdown(), DRAIN_TIMEOUT_MS);
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      }),
  };
}
