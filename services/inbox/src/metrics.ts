import { Counter, Gauge, type Registry } from 'prom-client';

export const CAPTURE_OUTCOMES = [
  'stored',
  'unknown_endpoint',
  'too_large',
  'store_full',
  'unavailable',
  'failed',
] as const;
export type CaptureOutcome = (typeof CAPTURE_OUTCOMES)[number];

export interface InboxMetrics {
  captures: Counter<'outcome'>;
  sseSubscribers: Gauge;
  sseRefused: Counter<'reason'>;
  memoryStoreFull: Counter<'what'>;
  retentionTrimmed: Counter<'reason'>;
}

export function createInboxMetrics(registry: Registry): InboxMetrics {
  return {
    captures: new Counter({
      name: 'portcullis_inbox_captures_total',
      help: 'Requests to receive URLs, by outcome: stored, unknown_endpoint, too_large, store_full, unavailable, failed.',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    sseSubscribers: new Gauge({
      name: 'portcullis_inbox_sse_subscribers',
      help: 'Open Server-Sent Events streams in this process.',
      registers: [registry],
    }),
    sseRefused: new Counter({
      name: 'portcullis_inbox_sse_refused_total',
      help: 'Live streams this process refused at a cap: reason="address" (INBOX_SSE_MAX_STREAMS_PER_ADDRESS) or "process" (INBOX_SSE_MAX_STREAMS).',
      labelNames: ['reason'],
      registers: [registry],
    }),
    memoryStoreFull: new Counter({
      name: 'portcullis_inbox_memory_store_full_total',
      help: 'Captures (what="capture") and endpoints (what="endpoint") the memory store refused at its bounds.',
      labelNames: ['what'],
      registers: [registry],
    }),
    retentionTrimmed: new Counter({
      name: 'portcullis_inbox_retention_trimmed_total',
      help: "Captures dropped by retention, by reason: count (past the endpoint's maxRequests, at a capture) and age (past its maximum age, by this process's trim).",
      labelNames: ['reason'],
      registers: [registry],
    }),
  };
}

/** `read` at each scrape: the fallback limiter's evictions, kept by the limiter itself. */
export function registerFallbackEvictions(registry: Registry, read: () => number): void {
  new Counter({
    name: 'portcullis_inbox_fallback_limiter_evictions_total',
    help: 'Counters the in-process fallback limiter dropped before their window ended, INBOX_FALLBACK_MAX_KEYS being reached.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(read());
    },
  });
}

/** The outcome a capture response's status stands for. */
export function toCaptureOutcome(statusCode: number): CaptureOutcome {
  if (statusCode < 300) return 'stored';
  if (statusCode === 404) return 'unknown_endpoint';
  if (statusCode === 413) return 'too_large';
  if (statusCode === 507) return 'store_full';
  if (statusCode === 503) return 'unavailable';
  return 'failed';
}
