import {
  status as GrpcStatus,
  type GrpcObject,
  type Server,
  type ServerUnaryCall,
  type ServerWritableStream,
  type ServiceClientConstructor,
  type sendUnaryData,
} from '@grpc/grpc-js';
import type { Health } from '@portcullis/kit';
import { PROTO_FILES, loadGrpcObject } from '@portcullis/protos';

/** The service name whose status mirrors `/healthcheck`, as upstream registers it. */
export const HEALTH_SERVICE_NAME = 'ratelimit';

type ServingStatus = 'SERVING' | 'NOT_SERVING' | 'SERVICE_UNKNOWN';
interface HealthCheckRequest {
  service?: string;
}
interface HealthCheckResponse {
  status: ServingStatus;
}

export function loadHealthServiceDefinition(): ServiceClientConstructor {
  const root = loadGrpcObject([PROTO_FILES.grpcHealth]);
  const v1 = ((root.grpc as GrpcObject).health as GrpcObject).v1 as GrpcObject;
  return v1.Health as ServiceClientConstructor;
}

/**
 * `grpc.health.v1.Health` on `server`: the empty service name is always SERVING (the server is up),
 * `ratelimit` follows `health`, any other name is unknown. `close()` ends every Watch stream, which a
 * graceful shutdown would otherwise wait for.
 */
export function addHealthService(server: Server, health: Health): { close(): void } {
  const watchers = new Set<ServerWritableStream<HealthCheckRequest, HealthCheckResponse>>();
  const statusOf = (service: string): ServingStatus | undefined => {
    if (service === '') return 'SERVING';
    if (service === HEALTH_SERVICE_NAME) return health.isHealthy() ? 'SERVING' : 'NOT_SERVING';
    return undefined;
  };
  server.addService(loadHealthServiceDefinition().service, {
    Check(
      call: ServerUnaryCall<HealthCheckRequest, HealthCheckResponse>,
      callback: sendUnaryData<HealthCheckResponse>,
    ) {
      const status = statusOf(call.request.service ?? '');
      if (status) callback(null, { status });
      else callback({ code: GrpcStatus.NOT_FOUND, details: `unknown service "${call.request.service}"` });
    },
    Watch(call: ServerWritableStream<HealthCheckRequest, HealthCheckResponse>) {
      const service = call.request.service ?? '';
      let last: ServingStatus | undefined;
      const send = (): void => {
        const status = statusOf(service) ?? 'SERVICE_UNKNOWN';
        if (status !== last) call.write({ status });
        last = status;
      };
      send();
      const stop = health.onChange(send);
      watchers.add(call);
      call.on('cancelled', () => {
        stop();
        watchers.delete(call);
      });
      call.on('finish', stop);
    },
  });
  return {
    close() {
      for (const call of watchers) call.end();
      watchers.clear();
    },
  };
}
