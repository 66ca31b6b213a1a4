import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter as GrpcExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { OTLPTraceExporter as HttpExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import type { Settings } from './settings.js';

/**
 * Registers the OpenTelemetry SDK process-wide from `TRACING_*`: an OTLP exporter (protobuf over HTTP, or
 * gRPC) that reads its endpoint, headers and timeout from the standard `OTEL_EXPORTER_OTLP_*` variables,
 * W3C trace-context and baggage propagation, and a sampler that follows the caller's decision and samples
 * `samplingRate` of new traces. Only the entry point calls this; the rest of the code uses the API.
 * `close()` exports what is buffered.
 */
export function startTracing(t: Settings['tracing']): { close(): Promise<void> } | undefined {
  if (!t.enabled) return undefined;
  const exporter = t.exporterProtocol === 'grpc' ? new GrpcExporter() : new HttpExporter();
  const provider = new TracerProvider({
    resource: resourceFromAttributes({
      'service.name': t.serviceName,
      'service.instance.id': t.serviceInstanceId,
      ...(t.serviceNamespace ? { 'service.namespace': t.serviceNamespace } : {}),
    }),
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(t.samplingRate) }),
    spanProcessors: [new BatchSpanProcessor({ exporter })],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(
    new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
  );
  trace.setGlobalTracerProvider(provider);
  return { close: () => provider.shutdown() };
}
