import {
  SpanStatusCode,
  context,
  isSpanContextValid,
  propagation,
  trace,
  type Span,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';

let tracersOf: TracerProvider | undefined;
const tracers = new Map<string, Tracer>();

/** The tracer named `name` of the provider registered now (a test may register another one later). */
function tracer(name: string): Tracer {
  const provider = trace.getTracerProvider();
  if (provider !== tracersOf) {
    tracers.clear();
    tracersOf = provider;
  }
  let found = tracers.get(name);
  if (!found) {
    found = trace.getTracer(name);
    tracers.set(name, found);
  }
  return found;
}

/**
 * Runs `fn` inside an active span named `name`, recording a thrown error on the span. Without a registered
 * OpenTelemetry SDK and outside a caller's trace, the span records nothing and no child could continue it:
 * `fn` then runs as it is, so this costs next to nothing when tracing is off (decisions call it twice).
 */
export function withSpan<T>(tracerName: string, name: string, fn: (span: Span) => Promise<T>): Promise<T> {
  const parent = context.active();
  const span = tracer(tracerName).startSpan(name, undefined, parent);
  if (!span.isRecording() && !isSpanContextValid(span.spanContext())) {
    try {
      return fn(span);
    } catch (err: unknown) {
      // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- what fn threw, unchanged, as the async path rejects
      return Promise.reject(err);
    }
  }
  return context.with(trace.setSpan(parent, span), async () => {
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
