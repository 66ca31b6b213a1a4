import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import { rm } from 'node:fs/promises';
import {
  Server as GrpcServer,
  ServerCredentials,
  type ServerUnaryCall,
  type sendUnaryData,
} from '@grpc/grpc-js';
import { startRedis } from '@portcullis/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createRlsClient } from './harness.js';
import { startService } from './service-process.js';

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const TRACEPARENT = `00-${TRACE_ID}-b7ad6b7169203331-01`;
const REQUEST = { domain: 'a', descriptors: [{ entries: [{ key: 'k', value: 'v' }] }] };

interface Receiver {
  endpoint: string;
  /** Every export request body received, undecoded. */
  bodies: Buffer[];
  close(): Promise<void>;
}

/** An OTLP/HTTP receiver: takes `POST /v1/traces` and answers an empty ExportTraceServiceResponse. */
async function startHttpReceiver(): Promise<Receiver & { contentTypes: string[] }> {
  const bodies: Buffer[] = [];
  const contentTypes: string[] = [];
  const server: HttpServer = createHttpServer((req, res) => {
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

/** An OTLP/gRPC collector: `TraceService/Export`, bodies kept as bytes. */
async function startGrpcReceiver(): Promise<Receiver> {
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

/** Starts the service with `env`, asks one decision with a sampled `traceparent`, stops it (which exports). */
async function decideOnceAndStop(env: Record<string, string>, traceparent?: string): Promise<void> {
  const p = await startService({ TRACING_ENABLED: 'true', ...env });
  const rls = createRlsClient(`127.0.0.1:${p.ports.grpc}`);
  try {
    await rls.shouldRateLimit(REQUEST, traceparent ? { traceparent } : {});
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
  } finally {
    rls.close();
    p.child.kill('SIGKILL');
    await rm(p.root, { recursive: true, force: true });
  }
}

const has = (bodies: Buffer[], bytes: Buffer | string): boolean => bodies.some((b) => b.includes(bytes));

describe('OTLP span export', () => {
  const receivers: Receiver[] = [];
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((r) => r.close()));
  });

  it('sends the decision and Redis spans over OTLP/HTTP protobuf, with the TRACING_* resource, in the caller’s trace', async () => {
    const receiver = await startHttpReceiver();
    receivers.push(receiver);
    const redis = await startRedis();
    await decideOnceAndStop(
      {
        BACKEND_TYPE: 'redis',
        KVSTORE_URL: redis.address,
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
        TRACING_SERVICE_NAME: 'rl-under-test',
        TRACING_SERVICE_NAMESPACE: 'edge-ns',
        TRACING_SERVICE_INSTANCE_ID: 'pod-7',
      },
      TRACEPARENT,
    ).finally(() => redis.stop());
    expect(receiver.contentTypes).toContain('application/x-protobuf');
    for (const text of [
      'ShouldRateLimit Execution',
      'Redis Pipeline Execution',
      'rl-under-test',
      'edge-ns',
      'pod-7',
      'ratelimit.domain',
    ]) {
      expect(has(receiver.bodies, text)).toBe(true);
    }
    expect(has(receiver.bodies, Buffer.from(TRACE_ID, 'hex'))).toBe(true);
  });

  it('sends it to an OTLP/gRPC collector with TRACING_EXPORTER_PROTOCOL=grpc', async () => {
    const receiver = await startGrpcReceiver();
    receivers.push(receiver);
    await decideOnceAndStop(
      { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, TRACING_EXPORTER_PROTOCOL: 'grpc' },
      TRACEPARENT,
    );
    expect(has(receiver.bodies, 'ShouldRateLimit Execution')).toBe(true);
    expect(has(receiver.bodies, 'RateLimit')).toBe(true);
    expect(has(receiver.bodies, Buffer.from(TRACE_ID, 'hex'))).toBe(true);
  });

  it('samples no new trace with TRACING_SAMPLING_RATE=0', async () => {
    const receiver = await startHttpReceiver();
    receivers.push(receiver);
    await decideOnceAndStop({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, TRACING_SAMPLING_RATE: '0' });
    expect(has(receiver.bodies, 'ShouldRateLimit Execution')).toBe(false);
  });
});
