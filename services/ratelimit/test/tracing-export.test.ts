import { rm } from 'node:fs/promises';
import {
  hasExported,
  startOtlpGrpcReceiver,
  startOtlpHttpReceiver,
  startRedis,
  type OtlpReceiver,
} from '@portcullis/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { createRlsClient } from './harness.js';
import { startService } from './service-process.js';

const TRACE_ID = '0af7651916cd43dd8448eb211c80319c';
const TRACEPARENT = `00-${TRACE_ID}-b7ad6b7169203331-01`;
const B3_TRACE_ID = '463ac35c9f6413ad48485a3953bb6124';
const REQUEST = { domain: 'a', descriptors: [{ entries: [{ key: 'k', value: 'v' }] }] };

/** Starts the service with `env`, asks one decision with `metadata` (trace headers), stops it (which exports). */
async function decideOnceAndStop(
  env: Record<string, string>,
  metadata: Record<string, string> = {},
): Promise<void> {
  const p = await startService({ TRACING_ENABLED: 'true', ...env });
  const rls = createRlsClient(`127.0.0.1:${p.ports.grpc}`);
  try {
    await rls.shouldRateLimit(REQUEST, metadata);
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
  } finally {
    rls.close();
    p.child.kill('SIGKILL');
    await rm(p.root, { recursive: true, force: true });
  }
}

describe('OTLP span export', () => {
  const receivers: OtlpReceiver[] = [];
  afterEach(async () => {
    await Promise.all(receivers.splice(0).map((r) => r.close()));
  });

  it('sends the decision and Redis spans over OTLP/HTTP protobuf, with the TRACING_* resource, in the caller’s trace', async () => {
    const receiver = await startOtlpHttpReceiver();
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
      { traceparent: TRACEPARENT },
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
      expect(hasExported(receiver.bodies, text)).toBe(true);
    }
    expect(hasExported(receiver.bodies, Buffer.from(TRACE_ID, 'hex'))).toBe(true);
  });

  it('sends it to an OTLP/gRPC collector with TRACING_EXPORTER_PROTOCOL=grpc', async () => {
    const receiver = await startOtlpGrpcReceiver();
    receivers.push(receiver);
    await decideOnceAndStop(
      { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, TRACING_EXPORTER_PROTOCOL: 'grpc' },
      { traceparent: TRACEPARENT },
    );
    expect(hasExported(receiver.bodies, 'ShouldRateLimit Execution')).toBe(true);
    expect(hasExported(receiver.bodies, 'RateLimit')).toBe(true);
    expect(hasExported(receiver.bodies, Buffer.from(TRACE_ID, 'hex'))).toBe(true);
  });

  // upstream propagates B3 besides W3C: a Zipkin-instrumented caller's trace continues in the decision
  it.each([
    ['single b3 header', { b3: `${B3_TRACE_ID}-e457b5a2e4d86bd1-1` }],
    [
      'multi X-B3-* headers',
      { 'x-b3-traceid': B3_TRACE_ID, 'x-b3-spanid': 'e457b5a2e4d86bd1', 'x-b3-sampled': '1' },
    ],
  ])('continues a B3 trace sent as %s', async (_, metadata) => {
    const receiver = await startOtlpHttpReceiver();
    receivers.push(receiver);
    // sampling off for new traces: a span exported proves the caller's sampled B3 context was followed
    await decideOnceAndStop(
      { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, TRACING_SAMPLING_RATE: '0' },
      metadata,
    );
    expect(hasExported(receiver.bodies, 'ShouldRateLimit Execution')).toBe(true);
    expect(hasExported(receiver.bodies, Buffer.from(B3_TRACE_ID, 'hex'))).toBe(true);
  });

  it('samples no new trace with TRACING_SAMPLING_RATE=0', async () => {
    const receiver = await startOtlpHttpReceiver();
    receivers.push(receiver);
    await decideOnceAndStop({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, TRACING_SAMPLING_RATE: '0' });
    expect(hasExported(receiver.bodies, 'ShouldRateLimit Execution')).toBe(false);
  });
});
