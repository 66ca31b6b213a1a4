import { Registry, collectDefaultMetrics } from 'prom-client';

/** A Prometheus registry with the process metrics (CPU, memory, event-loop lag) already registered. */
export function createMetricsRegistry(defaultLabels: Record<string, string> = {}): Registry {
  const registry = new Registry();
  registry.setDefaultLabels(defaultLabels);
  collectDefaultMetrics({ register: registry });
  return registry;
}
