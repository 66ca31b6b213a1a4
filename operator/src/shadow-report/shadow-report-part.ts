import type { KubeConfig } from '@kubernetes/client-node';
import type { Logger, Part } from '@portcullis/kit';
import type { Registry } from 'prom-client';
import type { KindResult } from '../reconcile/types.js';
import type { EndpointSliceEndpoints } from '../sources/endpoints.js';
import { createShadowReportMetrics } from './report-metrics.js';
import { KubernetesShadowReportSink, LogShadowReportSink } from './report-sink.js';
import type { ShadowReportSettings } from './settings.js';
import { ShadowReporter, servedConfigs, type ResourceLookup, type ServedConfig } from './shadow-reporter.js';

/**
 * The shadow-mode report as a part of the operator, or undefined when it is off (interval 0) or has
 * nothing to scrape (directory mode without `OPERATOR_SHADOW_REPORT_URLS`). Its targets are the URLs set,
 * or else `http://<address>:<port>/metrics` for each ready endpoint of the discovered service's port.
 */
export function createShadowReportPart(o: {
  settings: ShadowReportSettings;
  kubeConfig: KubeConfig | undefined;
  endpoints: EndpointSliceEndpoints | undefined;
  registry: Registry;
  /** The last reconcile's RateLimitConfigs; their served configurations are built when the report asks. */
  rateLimitConfigs: () => KindResult | undefined;
  resources: ResourceLookup;
  isLeader: () => boolean;
  log: Logger;
}): Part | undefined {
  const { settings, endpoints } = o;
  if (settings.intervalMs === 0 || (settings.urls.length === 0 && !endpoints)) return undefined;
  const log = o.log.child({ component: 'shadow-report' });
  // built when the report asks (once a minute), not on every reconcile
  let servedOf: KindResult | undefined;
  let served: readonly ServedConfig[] = [];
  const { name, portName } = settings.endpoints;
  const reporter = new ShadowReporter({
    settings,
    targets: () =>
      settings.urls.length > 0 || !endpoints
        ? settings.urls
        : endpoints
            .ready(name, portName)
            .map((e) => `http://${e.address.includes(':') ? `[${e.address}]` : e.address}:${e.port}/metrics`),
    served: () => {
      const result = o.rateLimitConfigs();
      if (result !== servedOf) [servedOf, served] = [result, result ? servedConfigs(result) : []];
      return served;
    },
    resources: o.resources,
    isLeader: o.isLeader,
    sink: o.kubeConfig ? new KubernetesShadowReportSink(o.kubeConfig, log) : new LogShadowReportSink(log),
    metrics: createShadowReportMetrics(o.registry),
    log,
  });
  return { name: 'shadow report', start: () => reporter.start(), close: () => reporter.close() };
}
