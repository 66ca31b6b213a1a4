import { trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { startRedis, type RedisServer } from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.js';

describe('OpenTelemetry spans', () => {
  const exporter = new InMemorySpanExporter();
  let redis: RedisServer;
  let h: Harness;

  beforeAll(async () => {
    trace.setGlobalTracerProvider(
      new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] }),
    );
    redis = await startRedis();
    h = await startHarness(
      {
        'a.yaml': 'domain: a\ndescriptors:\n  - key: k\n    rate_limit: {unit: hour, requests_per_unit: 5}\n',
      },
      { BACKEND_TYPE: 'redis', KVSTORE_URL: redis.address },
    );
  });
  afterAll(async () => {
    await h.close();
    await redis.stop();
    trace.disable();
  });

  it('wraps each decision and each Redis round trip in a span', async () => {
    await h.rls.shouldRateLimit({ domain: 'a', descriptors: [{ entries: [{ key: 'k', value: 'v' }] }] });
    const spans = exporter.getFinishedSpans();
    const decision = spans.find((s) => s.name === 'ShouldRateLimit Execution');
    const pipeline = spans.find((s) => s.name === 'Redis Pipeline Execution');
    expect(decision?.attributes).toEqual({ 'ratelimit.domain': 'a', 'ratelimit.descriptors': 1 });
    expect(pipeline).toBeDefined();
  });
});
