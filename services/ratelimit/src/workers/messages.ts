import type { Worker } from 'node:cluster';
import type { Registry } from 'prom-client';
import type { StatsReading } from '../stats/stats.js';

// What the primary and its workers say to each other over the cluster's IPC channel (JSON).

/** A registry's `getMetricsAsJSON()`, what prom-client's `AggregatorRegistry.aggregate` combines. */
export type MetricsJson = Awaited<ReturnType<Registry['getMetricsAsJSON']>>;

/** What a worker shows of itself on the debug port. */
export interface WorkerView {
  rules: string;
  health: Record<string, boolean>;
  counters: Array<[name: string, value: number]>;
  gauges: Array<[name: string, value: number]>;
  metrics: MetricsJson;
}

/** What a worker that closed sends last: what it counted, so the totals of the process keep it. */
export interface WorkerFinal {
  reading: StatsReading;
  metrics: MetricsJson;
}

const TAG = 'portcullis-ratelimit';

export interface PrimaryMessage {
  tag: typeof TAG;
  kind: 'view' | 'reading';
  id: number;
}

export type WorkerMessage =
  | { tag: typeof TAG; kind: 'view'; id: number; view: WorkerView }
  | { tag: typeof TAG; kind: 'reading'; id: number; reading: StatsReading }
  | { tag: typeof TAG; kind: 'final'; final: WorkerFinal };

type Untagged<M> = M extends unknown ? Omit<M, 'tag'> : never;

/** A message tagged as ours, so prom-client's or anyone else's on the same channel are told apart. */
export function tagged(m: Untagged<WorkerMessage>): WorkerMessage {
  return { tag: TAG, ...m };
}

/**
 * Sends to a worker; `lost` is called when it cannot take the message (its channel closed, before or under
 * the send). The callback keeps such a failure, routine while a worker exits, from being emitted as an
 * 'error' on the worker, which would crash the primary; the worker's exit is handled where it is watched.
 */
export function sendToWorker(worker: Worker, m: Omit<PrimaryMessage, 'tag'>, lost?: () => void): void {
  if (!worker.isConnected()) {
    lost?.();
    return;
  }
  worker.send({ tag: TAG, ...m } satisfies PrimaryMessage, (err) => {
    if (err) lost?.();
  });
}

export function isPrimaryMessage(m: unknown): m is PrimaryMessage {
  return typeof m === 'object' && m !== null && (m as { tag?: unknown }).tag === TAG;
}

export function isWorkerMessage(m: unknown): m is WorkerMessage {
  return typeof m === 'object' && m !== null && (m as { tag?: unknown }).tag === TAG;
}
