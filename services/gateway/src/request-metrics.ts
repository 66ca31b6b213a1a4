import type { HttpApp } from '@portcullis/kit';
import { Counter, Histogram, type Registry } from 'prom-client';

/** Counts and times every request under `base` (not probes, metrics or the admin API) as it is answered. */
export function addRequestMetrics(app: HttpApp, o: { registry: Registry; base: string }): void {
  const requests = new Counter({
    name: 'portcullis_gateway_requests_total',
    help: 'Requests under the base path, by method and status.',
    labelNames: ['method', 'status'],
    registers: [o.registry],
  });
  const seconds = new Histogram({
    name: 'portcullis_gateway_request_duration_seconds',
    help: 'Time to answer a request under the base path.',
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
    registers: [o.registry],
  });
  app.addHook('onResponse', (request, reply, done) => {
    if (request.url.startsWith(o.base)) {
      requests.inc({ method: request.method, status: String(reply.statusCode) });
      seconds.observe(reply.elapsedTime / 1000);
    }
    done();
  });
}
