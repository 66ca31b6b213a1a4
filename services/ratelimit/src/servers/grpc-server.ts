import {
  Server,
  ServerCredentials,
  type GrpcObject,
  type ServerUnaryCall,
  type ServiceClientConstructor,
  type sendUnaryData,
} from '@grpc/grpc-js';
import type { Logger, RunningServer } from '@portcullis/kit';
import { PROTO_FILES, loadGrpcObject } from '@portcullis/protos';
import type { RateLimitService } from '../service.js';
import { toGrpcStatus } from './error-status.js';
import { fromGrpcRequest, toGrpcResponse, type GrpcRateLimitRequest } from './grpc-codec.js';

export interface GrpcServerOptions {
  host: string;
  port: number;
  service: RateLimitService;
  log: Logger;
}

export function loadRateLimitServiceDefinition(): ServiceClientConstructor {
  const root = loadGrpcObject([PROTO_FILES.rateLimitService]);
  const pkg = ((root.envoy as GrpcObject).service as GrpcObject).ratelimit as GrpcObject;
  return (pkg.v3 as GrpcObject).RateLimitService as ServiceClientConstructor;
}

/** `envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit`. */
export async function startGrpcServer(o: GrpcServerOptions): Promise<RunningServer> {
  const log = o.log.child({ component: 'grpc' });
  const server = new Server();
  server.addService(loadRateLimitServiceDefinition().service, {
    ShouldRateLimit(call: ServerUnaryCall<GrpcRateLimitRequest, object>, callback: sendUnaryData<object>) {
      o.service.shouldRateLimit(fromGrpcRequest(call.request)).then(
        (response) => callback(null, toGrpcResponse(response)),
        (err: unknown) => {
          const status = toGrpcStatus(err);
          log.warn({ err, domain: call.request.domain, grpcCode: status.code }, 'ShouldRateLimit failed');
          callback(status);
        },
      );
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${o.host}:${o.port}`, ServerCredentials.createInsecure(), (err, bound) =>
      err ? reject(err) : resolve(bound),
    ),
  );
  log.info({ host: o.host, port }, 'gRPC listening');
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        const force = setTimeout(() => server.forceShutdown(), 5000);
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      }),
  };
}
