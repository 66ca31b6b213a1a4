import { Counter, type Registry } from 'prom-client';
import type { ScrapeFailure } from './fetch-metrics.js';

export interface ShadowReportMetrics {
  scrapes: Counter<'result'>;
  writes: Counter<'result'>;
}

export type ScrapeResult = 'ok' | ScrapeFailure;

export function createShadowReportMetrics(registry: Registry): ShadowReportMetrics {
  const registers = [registry];
  return {
    scrapes: new Counter({
      name: 'portcullis_operator_shadow_report_scrapes_total',
      help: 'Scrapes of the ratelimit instances for the shadow-mode report, by result (ok or why it failed).',
      labelNames: ['result'],
      registers,
    }),
    writes: new Counter({
      name: 'portcullis_operator_shadow_report_writes_total',
      help: 'Shadow-mode reports written to a RateLimitConfig status, by result (written or failed).',
      labelNames: ['result'],
      registers,
    }),
  };
}
