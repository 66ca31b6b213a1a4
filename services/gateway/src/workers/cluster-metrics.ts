import type { Worker } from 'node:cluster';
import { AggregatorRegistry, type PrometheusContentType, type Registry } from 'prom-client';
import type { Logger } from '@portcullis/kit';

// `/metrics` of a gateway with workers: whichever worker the scrape reaches asks the primary, which gathers
// every worker's registry over prom-client's own cluster messages and adds them up (AggregatorRegistry).
// Our messages are tagged, so they are told apart from prom-client's and the shutdown on the same channel.

const TAG = 'portcullis-gateway';
/** prom-client gives up on a worker's answer after 5 s; the worker waits a little longer for the primary's. */
const ANSWER_TIMEOUT_MS = 6000;

type MetricsMessage =
  | { tag: typeof TAG; kind: 'metrics-request'; id: number }
  | { tag: typeof TAG; kind: 'metrics'; id: number; text: string }
  | { tag: typeof TAG; kind: 'metrics-failed'; id: number; message: string };

function isMetricsMessage(m: unknown): m is MetricsMessage {
  return typeof m === 'object' && m !== null && (m as { tag?: unknown }).tag === TAG;
}

/**
 * In a worker: offers `registry` to the primary's aggregation, and returns what `/metrics` answers, the sum
 * over every worker.
 */
export function clusterMetricsText(registry: Registry): () => Promise<string> {
  AggregatorRegistry.setRegistries([registry]);
  // constructing one adds prom-client's listener that answers the primary's requests
  new AggregatorRegistry<PrometheusContentType>();
  const pending = new Map<number, { resolve(text: string): void; reject(err: Error): void }>();
  let nextId = 0;
  process.on('message', (m: unknown) => {
    if (!isMetricsMessage(m) || m.kind === 'metrics-request') return;
    const waiting = pending.get(m.id);
    pending.delete(m.id);
    if (m.kind === 'metrics') waiting?.resolve(m.text);
    else waiting?.reject(new Error(`metrics of the workers: ${m.message}`));
  });
  return () =>
    new Promise<string>((resolve, reject) => {
      const id = nextId++;
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error('metrics of the workers: no answer from the primary'));
      }, ANSWER_TIMEOUT_MS);
      pending.set(id, {
        resolve: (text) => (clearTimeout(timer), resolve(text)),
        reject: (err) => (clearTimeout(timer), reject(err)),
      });
      const request: MetricsMessage = { tag: TAG, kind: 'metrics-request', id };
      process.send?.(request);
    });
}

/** In the primary: answers `worker`'s requests with the metrics of all workers added up. */
export function answerMetricsRequests(
  worker: Worker,
  aggregator: AggregatorRegistry<PrometheusContentType>,
  log: Logger,
): void {
  worker.on('message', (m: unknown) => {
    if (!isMetricsMessage(m) || m.kind !== 'metrics-request') return;
    const reply = (answer: MetricsMessage): void => {
      // a worker gone meanwhile needs no answer; the callback keeps a failed send from crashing the primary
      if (worker.isConnected()) worker.send(answer, () => undefined);
    };
    aggregator.clusterMetrics().then(
      (text) => reply({ tag: TAG, kind: 'metrics', id: m.id, text }),
      (err: unknown) => {
        log.warn({ err }, 'could not gather the workers’ metrics');
        reply({ tag: TAG, kind: 'metrics-failed', id: m.id, message: String(err) });
      },
    );
  });
}
