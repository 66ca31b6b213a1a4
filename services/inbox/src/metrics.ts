import { Counter, Gauge, type Registry } from 'prom-client';

export const CAPTURE_OUTCOMES = ['stored', 'unknown_endpoint', 'too_large', 'unavailable', 'failed'] as const;
export type CaptureOutcome = (typeof CAPTURE_OUTCOMES)[number];

export interface InboxMetrics {
  captures: Counter<'outcome'>;
  sseSubscribers: Gauge;
}

export function createInboxMetrics(registry: Registry): InboxMetrics {
  return {
    captures: new Counter({
      name: 'portcullis_inbox_captures_total',
      help: 'Requests to receive URLs, by outcome: stored, unknown_endpoint, too_large, unavailable, failed.',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    sseSubscribers: new Gauge({
      name: 'portcullis_inbox_sse_subscribers',
      help: 'Open Server-Sent Events streams in this process.',
      registers: [registry],
    }),
  };
}

/** The outcome a capture response's status stands for. */
export function toCaptureOutcome(statusCode: number): CaptureOutcome {
  if (statusCode < 300) return 'stored';
  if (statusCode === 404) return 'unknown_endpoint';
  if (statusCode === 413) return 'too_large';
  if (statusCode === 503) return 'unavailable';
  return 'failed';
}
