import { createServer as createHttpServer } from 'node:http';
import {
  Server as GrpcServer,
  ServerCredentials,
  type ServerUnaryCall,
  type sendUnaryData,
} from '@grpc/grpc-js';

// OTLP trace receivers on a free loopback port, for tests of a process's span export: they keep each export
// request's protobuf body undecoded, and answer an empty ExportTraceServiceResponse.

export interface OtlpReceiver {
  /** For `OTEL_EXPORTER_OTLP_ENDPOINT`. */
  endpoint: string;
  /** Every export request body received, undecoded. */
  bodies: Buffer[];
  close(): Promise<void>;
}

/** OTLP/HTTP: `POST /v1/traces`; `contentTypes` holds the `Content-Type` of each export. */
export async function startOtlpHttpReceiver(): Promise<OtlpReceiver & { contentTypes: string[] }> {
  const bodies: Buffer[] = [];
  const contentTypes: string[] = [];
  const server = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/v1/traces') {
        bodies.push(Buffer.concat(chunks));
        contentTypes.push(req.headers['content-type'] ?? '');
      }
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bodies,
    contentTypes,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** OTLP/gRPC: `opentelemetry.proto.collector.trace.v1.TraceService/Export`. */
export async function startOtlpGrpcReceiver(): Promise<OtlpReceiver> {
  const bodies: Buffer[] = [];
  const server = new GrpcServer();
  const identity = (b: Buffer): Buffer => b;
  server.addService(
    {
      Export: {
        path: '/opentelemetry.proto.collector.trace.v1.TraceService/Export',
        requestStream: false,
        responseStream: false,
        requestSerialize: identity,
        requestDeserialize: identity,
        responseSerialize: identity,
        responseDeserialize: identity,
      },
    },
    {
      Export(call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>) {
        bodies.push(call.request);
        callback(null, Buffer.alloc(0));
      },
    },
  );
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (err, p) =>
      err ? reject(err) : resolve(p),
    ),
  );
  return {
    endpoint: `http://127.0.0.1:${port}`,
    bodies,
    close: () => new Promise((resolve) => server.tryShutdown(() => resolve())),
  };
}

/**
 * Whether one export body holds every part: a span name, a resource attribute's value, a trace id as its
 * 16 bytes (`Buffer.from(hex, 'hex')`).
 */
export function hasExported(bodies: readonly Buffer[], ...parts: ReadonlyArray<string | Buffer>): boolean {
  return bodies.some((b) => parts.every((part) => b.includes(part)));
}
