import cluster from 'node:cluster';
import { UnavailableError } from '../errors.js';
import { AggregatorRegistry, type Registry } from 'prom-client';

// `/metrics` of a process with workers: the worker that holds the scrape asks the primary, which asks every
// worker (prom-client's AggregatorRegistry, over the cluster's IPC channel) and answers with the sum. Tagged,
// so it is told apart from prom-client's and the shutdown link's messages on the same channel.

const TAG = 'portcullis-metrics';
/** prom-client gives up on a worker that does not answer after 5 s: the scrape waits a little longer. */
const ANSWER_TIMEOUT_MS = 6000;

type MetricsAsk = { tag: typeof TAG; kind: 'ask'; id: number };
type MetricsAnswer = { tag: typeof TAG; kind: 'answer'; id: number; text?: string; error?: string };

function isTagged<M extends MetricsAsk | MetricsAnswer>(m: unknown, kind: M['kind']): m is M {
  return (
    typeof m === 'object' &&
    m !== null &&
    (m as { tag?: unknown }).tag === TAG &&
    (m as { kind?: unknown }).kind === kind
  );
}

/** In the primary: answers the workers' asks with the sum of every worker's registry. */
export function answerMetricsAsks(): void {
  const aggregator = new AggregatorRegistry();
  cluster.on('message', (worker, m: unknown) => {
    if (!isTagged<MetricsAsk>(m, 'ask')) return;
    const reply = (answer: Omit<MetricsAnswer, 'tag' | 'kind' | 'id'>): void => {
      if (worker.isConnected())
        worker.send({ tag: TAG, kind: 'answer', id: m.id, ...answer }, () => undefined);
    };
    aggregator.clusterMetrics().then(
      (text) => reply({ text }),
      (err: unknown) => reply({ error: err instanceof Error ? err.message : String(err) }),
    );
  });
}

/**
 * In a worker: `registry` is what the primary sums, and the returned function reads the sum (rejecting with
 * 503 `UNAVAILABLE` when the primary or a worker does not answer). Outside a cluster: `registry`'s own text.
 */
export function createMetricsReader(registry: Registry): () => Promise<string> {
  if (!cluster.isWorker) return () => registry.metrics();
  AggregatorRegistry.setRegistries([registry]);
  // prom-client answers the primary from a listener it adds once an AggregatorRegistry is made in a worker
  new AggregatorRegistry();
  const pending = new Map<number, (answer: MetricsAnswer | undefined) => void>();
  let nextId = 0;
  process.on('message', (m: unknown) => {
    if (isTagged<MetricsAnswer>(m, 'answer')) pending.get(m.id)?.(m);
  });
  return async () => {
    const id = nextId++;
    const answer = await new Promise<MetricsAnswer | undefined>((resolve) => {
      const timer = setTimeout(() => resolve(undefined), ANSWER_TIMEOUT_MS);
      pending.set(id, (a) => {
        clearTimeout(timer);
        resolve(a);
      });
      const ask: MetricsAsk = { tag: TAG, kind: 'ask', id };
      process.send?.(ask, undefined, {}, (err: Error | null) => {
        if (err) pending.get(id)?.(undefined);
      });
    });
    pending.delete(id);
    if (answer?.text === undefined) {
      const why = answer?.error ?? 'the primary did not answer';
      throw new UnavailableError(`the workers' metrics could not be summed: ${why}`);
    }
    return answer.text;
  };
}
