import type { GrpcObject, ServiceClientConstructor } from '@grpc/grpc-js';
import { GRPC_STATUS, type Health } from '@portcullis/kit';
import { PROTO_FILES, loadGrpcObject } from '@portcullis/protos';
import { UNDECODABLE, type GrpcCall, type RequestHandler } from './grpc/grpc-call.js';
import { ProtoReader, ProtoWriter, WIRE } from './grpc/proto-wire.js';

/** The service name whose status mirrors `/healthcheck`, as upstream registers it. */
export const HEALTH_SERVICE_NAME = 'ratelimit';

/** `HealthCheckResponse.ServingStatus` numbers. */
const SERVING = 1;
const NOT_SERVING = 2;
const SERVICE_UNKNOWN = 3;

/** A client of `grpc.health.v1.Health`, for tests and probes. */
export function loadHealthServiceDefinition(): ServiceClientConstructor {
  const root = loadGrpcObject([PROTO_FILES.grpcHealth]);
  const v1 = ((root.grpc as GrpcObject).health as GrpcObject).v1 as GrpcObject;
  return v1.Health as ServiceClientConstructor;
}

export interface HealthService {
  /** `/grpc.health.v1.Health/<method>` → its handler. */
  handlers: ReadonlyMap<string, RequestHandler>;
  /** Ends every Watch stream (status OK), which a graceful shutdown would otherwise wait for. */
  close(): void;
}

const reader = new ProtoReader();
const writer = new ProtoWriter();

/** `HealthCheckRequest.service`; throws `MalformedMessageError` on malformed protobuf. */
function decodeServiceName(message: Buffer): string {
  const r = reader.reset(message, 0, message.length);
  let service = '';
  while (r.pos < r.end) {
    const tag = r.tag();
    if (tag >>> 3 === 1) {
      r.expect(tag, WIRE.LENGTH);
      service = r.string();
    } else r.skip(tag);
  }
  return service;
}

function encodeStatus(status: number): Buffer {
  const w = writer.reset();
  w.varint(1, status);
  return w.framed();
}

/**
 * `grpc.health.v1.Health`: the empty service name is always SERVING (the server is up), `ratelimit` follows
 * `health`, any other name is unknown (`NOT_FOUND` to Check, `SERVICE_UNKNOWN` to Watch).
 */
export function createHealthService(health: Health): HealthService {
  const watchers = new Set<GrpcCall>();
  const statusOf = (service: string): number | undefined => {
    if (service === '') return SERVING;
    if (service === HEALTH_SERVICE_NAME) return health.isHealthy() ? SERVING : NOT_SERVING;
    return undefined;
  };
  const read = (call: GrpcCall, message: Buffer): string | undefined => {
    try {
      return decodeServiceName(message);
    } catch {
      call.sendStatus(UNDECODABLE);
      return undefined;
    }
  };
  const check: RequestHandler = (call, message) => {
    const service = read(call, message);
    if (service === undefined) return;
    const status = statusOf(service);
    if (status) call.sendUnary(encodeStatus(status));
    else call.sendStatus({ code: GRPC_STATUS.NOT_FOUND, details: `unknown service "${service}"` });
  };
  const watch: RequestHandler = (call, message) => {
    const service = read(call, message);
    if (service === undefined) return;
    let last: number | undefined;
    const send = (): void => {
      const status = statusOf(service) ?? SERVICE_UNKNOWN;
      if (status !== last) call.write(encodeStatus(status));
      last = status;
    };
    send();
    const stop = health.onChange(send);
    watchers.add(call);
    call.stream.once('close', () => {
      stop();
      watchers.delete(call);
    });
  };
  return {
    handlers: new Map([
      ['/grpc.health.v1.Health/Check', check],
      ['/grpc.health.v1.Health/Watch', watch],
    ]),
    close() {
      for (const call of watchers) call.sendStatus({ code: GRPC_STATUS.OK, details: 'OK' });
      watchers.clear();
    },
  };
}
