import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, hasExported, startEntryPoint, startOtlpHttpReceiver } from '@portcullis/testing';
import { describe, expect, it } from 'vitest';

// The gateway from its entry point with TRACING_ENABLED=true: its spans reach an OTLP/HTTP receiver.

const MAIN = join(import.meta.dirname, '../src/main.ts');
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const PARENT_SPAN_ID = '00f067aa0ba902b7';

describe('gateway OTLP span export', () => {
  it('exports the request span, in the trace of the caller’s traceparent, when the gateway stops', async () => {
    const receiver = await startOtlpHttpReceiver();
    const stateDir = await mkdtemp(join(tmpdir(), 'gateway-tracing-'));
    const port = await freePort();
    try {
      const gateway = await startEntryPoint(MAIN, {
        env: {
          GATEWAY_HOST: '127.0.0.1',
          GATEWAY_PORT: String(port),
          GATEWAY_RATELIMIT_URL: 'none',
          GATEWAY_STATE_DIR: stateDir,
          GATEWAY_SHUTDOWN_DELAY: '0s',
          LOG_LEVEL: 'warn',
          TRACING_ENABLED: 'true',
          // no trace of its own is sampled: the span is exported only because the caller's was
          TRACING_SAMPLING_RATE: '0',
          TRACING_SERVICE_INSTANCE_ID: 'gateway-pod-3',
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
        },
        healthUrl: `http://127.0.0.1:${port}/healthz`,
      });
      try {
        const answer = await fetch(`http://127.0.0.1:${port}/api/orders`, {
          headers: { traceparent: `00-${TRACE_ID}-${PARENT_SPAN_ID}-01` },
        });
        expect(answer.status).toBe(404);
        gateway.child.kill('SIGTERM');
        expect(await gateway.exited).toBe(0);
      } finally {
        await gateway.stop();
      }
      expect(receiver.contentTypes).toContain('application/x-protobuf');
      expect(
        hasExported(
          receiver.bodies,
          'gateway request',
          'portcullis-gateway',
          'gateway-pod-3',
          Buffer.from(TRACE_ID, 'hex'),
          Buffer.from(PARENT_SPAN_ID, 'hex'),
        ),
      ).toBe(true);
    } finally {
      await receiver.close();
      await rm(stateDir, { recursive: true, force: true });
    }
  }, 90_000);
});
