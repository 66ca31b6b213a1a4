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
const REQUEST = { domain: 'a', descriptors: [{ entries: [{ key: 'k', value: 'v' }] }] };

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
      expect(hasExported(receiver.bodies, text)).toBe(true);
    }
    expect(hasExported(receiver.bodies, Buffer.from(TRACE_ID, 'hex'))).toBe(true);
  });

  it('sends it to an OTLP/gRPC collector with TRACING_EXPORTER_PROTOCOL=grpc', async () => {
    const receiver = await startOtlpGrpcReceiver();
    receivers.push(receiver);
    await decideOnceAndStop(
      { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, TRACING_EXPORTER_PROTOCOL: 'grpc' },
      TRACEPARENT,
    );
    expect(hasExported(receiver.bodies, 'ShouldRateLimit Execution')).toBe(true);
    expect(hasExported(receiver.bodies, 'RateLimit')).toBe(true);
    expect(hasExported(receiver.bodies, Buffer.from(TRACE_ID, 'hex'))).toBe(true);
  });

  it('samples no new trace with TRACING_SAMPLING_RATE=0', async () => {
    const receiver = await startOtlpHttpReceiver();
    receivers.push(receiver);
    await decideOnceAndStop({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint, TRACING_SAMPLING_RATE: '0' });
    expect(hasExported(receiver.bodies, 'ShouldRateLimit Execution')).toBe(false);
  });
});
