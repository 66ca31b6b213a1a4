import { Counter, Gauge, type Registry } from 'prom-client';
import type { CircuitState } from '../contract/forwarding-json.js';
import type { CircuitView } from '../forwarding-store/circuit-reports.js';

export const ATTEMPT_OUTCOMES = ['delivered', 'retrying', 'dead'] as const;
export type AttemptOutcome = (typeof ATTEMPT_OUTCOMES)[number];

export interface WorkerMetrics {
  /** For the forwarder's `onAttempt`. */
  countAttempt(outcome: AttemptOutcome, attempt: number): void;
}

/** What the gauges read at each scrape. */
export interface WorkerGauges {
  inFlight(): number;
  backlog(): Promise<{ pending: number; lag: number; deadLetters: number }>;
  circuits(): CircuitView[];
}

/** The circuit state gauge's values. */
export const CIRCUIT_STATE_VALUES: Record<CircuitState, number> = { closed: 0, 'half-open': 1, open: 2 };

/** The forwarding worker's figures, on its own `/metrics`. */
export function createWorkerMetrics(registry: Registry, gauges: WorkerGauges): WorkerMetrics {
  const deliveries = new Counter({
    name: 'portcullis_inbox_forward_deliveries_total',
    help: 'Delivery attempts to forward targets, by outcome: delivered (2xx), retrying (failed, retry scheduled), dead (failed, dead-lettered).',
    labelNames: ['outcome'],
    registers: [registry],
  });
  for (const outcome of ATTEMPT_OUTCOMES) deliveries.inc({ outcome }, 0);
  const retries = new Counter({
    name: 'portcullis_inbox_forward_retries_total',
    help: 'Delivery attempts after the first to the same target.',
    registers: [registry],
  });
  new Gauge({
    name: 'portcullis_inbox_forward_in_flight',
    help: 'Captures this worker is forwarding now.',
    registers: [registry],
    collect() {
      this.set(gauges.inFlight());
    },
  });
  // one series per target with a circuit that is not closed, or has failures: bounded by the targets
  // (at most 5 per managed endpoint), gone once closed again
  new Gauge({
    name: 'portcullis_inbox_forward_circuit_state',
    help: "A target's circuit breaker in this worker: 0 closed (with failures), 1 half-open, 2 open.",
    labelNames: ['endpoint', 'target'],
    registers: [registry],
    collect() {
      this.reset();
      for (const c of gauges.circuits())
        this.set({ endpoint: c.endpointId, target: c.target }, CIRCUIT_STATE_VALUES[c.state]);
    },
  });
  // one read of Redis per scrape serves the three gauges below
  let backlog: ReturnType<WorkerGauges['backlog']> | undefined;
  const readBacklog = (): ReturnType<WorkerGauges['backlog']> => {
    backlog ??= gauges.backlog().finally(() => (backlog = undefined));
    return backlog;
  };
  const backlogGauge = (name: string, help: string, key: 'pending' | 'lag' | 'deadLetters') =>
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        // Redis down: the last figures stay, and /readyz names redis
        const read = await readBacklog().catch(() => undefined);
        if (read) this.set(read[key]);
      },
    });
  backlogGauge(
    'portcullis_inbox_forward_pending',
    'Captures read by a worker and not yet acknowledged, over the managed endpoints that forward.',
    'pending',
  );
  backlogGauge(
    'portcullis_inbox_forward_lag',
    'Captures no worker has read yet, over the managed endpoints that forward.',
    'lag',
  );
  backlogGauge(
    'portcullis_inbox_forward_dead_letters',
    'Dead letters kept (about the newest 1,000 per endpoint), over the managed endpoints that forward.',
    'deadLetters',
  );
  return {
    countAttempt(outcome, attempt) {
      deliveries.inc({ outcome });
      if (attempt > 1) retries.inc();
    },
  };
}
