import type { Worker } from 'node:cluster';
import type { Logger } from '@portcullis/kit';
import type { DebugView } from '../servers/debug-server.js';
import { statsLines, type StatsReading } from '../stats/stats.js';
import { aggregateMetrics, combineHealth, combineRules, retireMetrics, sumByName } from './aggregate.js';
import { isWorkerMessage, sendToWorker, type MetricsJson, type WorkerView } from './messages.js';

/** How long the primary waits for a worker's answer; one that does not answer is left out (and unhealthy). */
const ANSWER_TIMEOUT_MS = 2000;

interface Pending {
  resolve(answer: unknown): void;
}

/**
 * The primary's view of its workers, for the debug port and the statsd sink: each request asks every
 * running worker and combines the answers. What a worker counted outlives it (`retire`), so totals never go
 * down when one is replaced; counts since its last answer are lost with a worker that crashed.
 */
export class ClusterView implements DebugView {
  private readonly workers = new Map<number, Worker>();
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  /** Per running worker, its counters and metrics as last seen. */
  private readonly lastCounters = new Map<number, Array<[string, number]>>();
  private readonly lastMetrics = new Map<number, MetricsJson>();
  /** Workers that sent their final report: what they say later is older. */
  private readonly closed = new Set<number>();
  private retiredCounters: Array<[string, number]> = [];
  private retiredMetrics: MetricsJson = [];
  /** Timings of workers that closed, not yet flushed. */
  private retiredTimings: StatsReading['timings'] = [];

  constructor(private readonly o: { expected: number; log: Logger }) {}

  attach(worker: Worker): void {
    this.workers.set(worker.id, worker);
    worker.on('message', (m: unknown) => {
      if (!isWorkerMessage(m)) return;
      switch (m.kind) {
        case 'view':
        case 'reading':
          this.pending.get(m.id)?.resolve(m);
          return;
        case 'final':
          this.closed.add(worker.id);
          this.lastCounters.set(worker.id, m.final.reading.counters);
          this.lastMetrics.set(worker.id, m.final.metrics);
          this.retiredTimings.push(...m.final.reading.timings);
          return;
        default: {
          const _: never = m;
          return _;
        }
      }
    });
  }

  /** Folds what `worker` counted into the totals, once it has exited. */
  async retire(id: number): Promise<void> {
    this.workers.delete(id);
    this.closed.delete(id);
    this.retiredCounters = sumByName([this.retiredCounters, this.lastCounters.get(id) ?? []]);
    this.retiredMetrics = await retireMetrics(this.retiredMetrics, this.lastMetrics.get(id) ?? []);
    this.lastCounters.delete(id);
    this.lastMetrics.delete(id);
  }

  async rules(): Promise<string> {
    const views = await this.views();
    return combineRules(new Map([...views].flatMap(([id, v]) => (v ? [[id, v.rules] as const] : []))));
  }

  async statsLines(): Promise<string[]> {
    const views = [...(await this.views()).values()].flatMap((v) => (v ? [v] : []));
    const counters = sumByName([this.retiredCounters, ...views.map((v) => v.counters)]);
    return statsLines([...counters, ...sumByName(views.map((v) => v.gauges))]);
  }

  async metrics(): Promise<string> {
    const views = [...(await this.views()).values()].flatMap((v) => (v ? [v.metrics] : []));
    return aggregateMetrics([this.retiredMetrics, ...views]);
  }

  async health(): Promise<{ healthy: boolean; components: Record<string, boolean> }> {
    const views = await this.views();
    return combineHealth(new Map([...views].map(([id, v]) => [id, v?.health])), this.o.expected);
  }

  /** The statsd reading of the whole process: counters and gauges summed, every worker's timings. */
  async drainReading(): Promise<StatsReading> {
    const readings = [...(await this.ask<{ reading: StatsReading }>('reading')).entries()];
    for (const [id, answer] of readings) {
      if (answer && !this.closed.has(id)) this.lastCounters.set(id, answer.reading.counters);
    }
    const live = readings.flatMap(([, a]) => (a ? [a.reading] : []));
    const timings = [...this.retiredTimings, ...live.flatMap((r) => r.timings)];
    this.retiredTimings = [];
    return {
      counters: sumByName([this.retiredCounters, ...live.map((r) => r.counters)]),
      gauges: sumByName(live.map((r) => r.gauges)),
      timings,
    };
  }

  private async views(): Promise<Map<number, WorkerView | undefined>> {
    const answers = await this.ask<{ view: WorkerView }>('view');
    const views = new Map<number, WorkerView | undefined>();
    for (const [id, answer] of answers) {
      views.set(id, answer?.view);
      if (answer && !this.closed.has(id)) {
        this.lastCounters.set(id, answer.view.counters);
        this.lastMetrics.set(id, answer.view.metrics);
      }
    }
    return views;
  }

  /** Each running worker's answer to `kind`, `undefined` where none came in time. */
  private async ask<A>(kind: 'view' | 'reading'): Promise<Map<number, A | undefined>> {
    const asked = [...this.workers].map(async ([workerId, worker]) => {
      const id = this.nextId++;
      const answer = await new Promise<A | undefined>((resolve) => {
        const timer = setTimeout(() => {
          this.o.log.warn({ worker: workerId, kind }, 'worker did not answer');
          resolve(undefined);
        }, ANSWER_TIMEOUT_MS);
        this.pending.set(id, {
          resolve: (a) => {
            clearTimeout(timer);
            resolve(a as A);
          },
        });
        sendToWorker(worker, { kind, id }, () => this.pending.get(id)?.resolve(undefined));
      });
      this.pending.delete(id);
      return [workerId, answer] as const;
    });
    return new Map(await Promise.all(asked));
  }
}
