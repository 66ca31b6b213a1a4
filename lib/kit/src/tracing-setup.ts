import { randomUUID } from 'node:crypto';
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter as GrpcExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { OTLPTraceExporter as HttpExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { B3Propagator } from '@opentelemetry/propagator-b3';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import type { EnvReader } from './env.js';

const TRACING_EXPORTER_PROTOCOLS = ['http', 'grpc'] as const;

export interface TracingSettings {
  enabled: boolean;
  /** The OTLP exporter; its endpoint and headers come from the standard `OTEL_EXPORTER_OTLP_*` variables. */
  exporterProtocol: (typeof TRACING_EXPORTER_PROTOCOLS)[number];
  serviceName: string;
  /** Empty: no `service.namespace` attribute. */
  serviceNamespace: string;
  serviceInstanceId: string;
  /** Share of new traces sampled, 0 to 1; a caller's decision is followed whatever this is. */
  samplingRate: number;
}

/**
 * Reads the `TRACING_*` settings, upstream Envoy ratelimit's names, the same in every process; only the
 * default `TRACING_SERVICE_NAME` is the caller's. The instance id defaults to a random UUID per process.
 */
export function readTracingSettings(env: EnvReader, defaults: { serviceName: string }): TracingSettings {
  return {
    enabled: env.bool('TRACING_ENABLED', { default: false }),
    exporterProtocol: env.oneOf('TRACING_EXPORTER_PROTOCOL', TRACING_EXPORTER_PROTOCOLS, { default: 'http' }),
    serviceName: env.str('TRACING_SERVICE_NAME', { default: defaults.serviceName }),
    serviceNamespace: env.str('TRACING_SERVICE_NAMESPACE'),
    serviceInstanceId: env.str('TRACING_SERVICE_INSTANCE_ID', { default: randomUUID() }),
    samplingRate: env.num('TRACING_SAMPLING_RATE', { default: 1, min: 0, max: 1 }),
  };
}

export interface Tracing {
  /** Exports the spans still buffered, then stops the exporter. */
  close(): Promise<void>;
}

/**
 * Registers the OpenTelemetry SDK process-wide: an OTLP exporter (protobuf over HTTP, or gRPC) that reads
 * its endpoint, headers and timeout from the standard `OTEL_EXPORTER_OTLP_*` variables, W3C trace-context,
 * B3 and baggage propagation as upstream Envoy ratelimit (B3 read in its single `b3` and multi `X-B3-*`
 * forms, written as the single header, as Go's `b3.New()` does), and a sampler that follows the caller's decision and samples `samplingRate` of
 * new traces. Only an entry point calls this, once; the rest of the code uses the API (`withSpan`).
 * Undefined when tracing is off.
 */
export function startTracing(t: TracingSettings): Tracing | undefined {
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
    new CompositePropagator({
      propagators: [new W3CTraceContextPropagator(), new B3Propagator(), new W3CBaggagePropagator()],
    }),
  );
  trace.setGlobalTracerProvider(provider);
  return { close: () => provider.shutdown() };
}
