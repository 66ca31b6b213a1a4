import { join } from 'node:path';
import { freePort, hasExported, startEntryPoint, startOtlpHttpReceiver } from '@portcullis/testing';
import { describe, expect, it } from 'vitest';

// The inbox from its entry point with TRACING_ENABLED=true: its spans reach an OTLP/HTTP receiver.

const MAIN = join(import.meta.dirname, '../src/main.ts');
const TRACE_ID = '5cf92f3577b34da6a3ce929d0e0e4737';
const PARENT_SPAN_ID = '01f067aa0ba902b8';

describe('inbox OTLP span export', () => {
  it('exports the capture span, in the trace of the sender’s traceparent, when the inbox stops', async () => {
    const receiver = await startOtlpHttpReceiver();
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    try {
      const inbox = await startEntryPoint(MAIN, {
        env: {
          INBOX_HOST: '127.0.0.1',
          INBOX_PORT: String(port),
          INBOX_PUBLIC_URL: base,
          INBOX_SHUTDOWN_DELAY: '0s',
          LOG_LEVEL: 'warn',
          TRACING_ENABLED: 'true',
          // no trace of its own is sampled: the span is exported only because the sender's was
          TRACING_SAMPLING_RATE: '0',
          TRACING_SERVICE_INSTANCE_ID: 'inbox-pod-5',
          OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
        },
        healthUrl: `${base}/healthz`,
      });
      try {
        const created = await fetch(`${base}/api/endpoints`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        });
        expect(created.status).toBe(201);
        const { id } = (await created.json()) as { id: string };
        const captured = await fetch(`${base}/api/hook/${id}`, {
          method: 'POST',
          headers: { traceparent: `00-${TRACE_ID}-${PARENT_SPAN_ID}-01` },
          body: 'hello',
        });
        expect(captured.status).toBe(200);
        inbox.child.kill('SIGTERM');
        expect(await inbox.exited).toBe(0);
      } finally {
        await inbox.stop();
      }
      expect(receiver.contentTypes).toContain('application/x-protobuf');
      expect(
        hasExported(
          receiver.bodies,
          'inbox capture',
          'portcullis-inbox',
          'inbox-pod-5',
          Buffer.from(TRACE_ID, 'hex'),
          Buffer.from(PARENT_SPAN_ID, 'hex'),
        ),
      ).toBe(true);
      // the endpoint was created without a traceparent: its root span was not sampled (rate 0)
      expect(hasExported(receiver.bodies, 'inbox create endpoint')).toBe(false);
    } finally {
      await receiver.close();
    }
  }, 90_000);
});
