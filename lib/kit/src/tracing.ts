import { SpanStatusCode, context, propagation, trace, type Span } from '@opentelemetry/api';

/**
 * Runs `fn` inside an active span named `name`, recording a thrown error on the span. Without a registered
 * OpenTelemetry SDK the API is a no-op, so this costs next to nothing when tracing is off.
 */
export async function withSpan<T>(
  tracerName: string,
  name: string,
  fn: (span: Span) => Promise<T>,
): Promise<T> {
  return trace.getTracer(tracerName).startActiveSpan(name, async (span) => {
    try {
      return await fn(span);
    } catch (err: unknown) {
      span.recordException(err instanceof Error ? err : String(err));
      span.setStatus({ code: SpanStatusCode.ERROR });
      throw err;
    } finally {
      span.end();
    }
  });
}

/**
 * Runs `fn` in the trace context a caller sent along (`traceparent`, `baggage`… in HTTP headers or gRPC
 * metadata), so its spans continue the caller's trace. Without a registered propagator this is just `fn()`.
 */
export function withCallerContext<T>(carrier: Readonly<Record<string, unknown>>, fn: () => T): T {
  return context.with(propagation.extract(context.active(), carrier), fn);
}
