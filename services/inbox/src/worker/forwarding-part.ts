import type { Logger, Part } from '@portcullis/kit';
import type { Registry } from 'prom-client';
import type { Settings } from '../settings.js';
import type { InboxStore } from '../store/types.js';
import { createEgressPolicy } from '../delivery/egress-policy.js';
import type { CircuitReports } from '../forwarding-store/circuit-reports.js';
import type { DeadLetters } from '../forwarding-store/dead-letters.js';
import type { ForwardQueue } from '../forwarding-store/forward-queue.js';
import { createForwarder, type Forwarder } from './forwarder.js';
import { createWorkerMetrics } from './worker-metrics.js';

export interface ForwardingPartOptions {
  /** `worker`: the worker process, on Redis; `local`: inside the inbox process, on the memory store. */
  mode: 'worker' | 'local';
  store: InboxStore;
  queue: ForwardQueue;
  deadLetters: DeadLetters;
  /** Where the forwarder says which circuits are not closed, every third of the claim idle time. */
  circuitReports: CircuitReports;
  settings: Pick<Settings, 'worker' | 'egressAllowPrivate'>;
  log: Logger;
  /** Where the `portcullis_inbox_forward_*` metrics go. */
  registry: Registry;
  now: () => number;
  random?: (() => number) | undefined;
}

/** The consumer loop counts as alive while it went round within this many poll intervals. */
const LOOP_STALE_POLLS = 3;

export interface ForwardingPart extends Part {
  /**
   * The readiness check (`consumer loop` in the worker, `local forwarder` in local mode; the caller adds it
   * where its start order needs it): false until started and the reading loop has gone round, and when it
   * has not for three poll intervals.
   */
  readonly isLoopLive: () => boolean;
}

/**
 * The forwarder as a start-up part, with its metrics and readiness check: the same in the worker (Redis
 * queue) and in the inbox process of local mode (memory queue). Its start resolves once the loop has gone
 * round; its close lets deliveries under way finish.
 */
export function createForwardingPart(o: ForwardingPartOptions): ForwardingPart {
  let forwarder: Forwarder | undefined;
  let reporting: NodeJS.Timeout | undefined;
  const metrics = createWorkerMetrics(o.registry, {
    inFlight: () => forwarder?.inFlightCount() ?? 0,
    backlog: async () => {
      const ids = forwarder?.endpointIds() ?? [];
      const [backlog, deadLetters] = await Promise.all([o.queue.backlog(ids), o.deadLetters.count(ids)]);
      return { ...backlog, deadLetters };
    },
    circuits: () => forwarder?.circuits() ?? [],
  });
  const { claimIdleMs, consumerName } = o.settings.worker;
  // one publish at a time, in order: the last one says the latest
  let reported = Promise.resolve();
  const report = (views: Parameters<CircuitReports['publish']>[1]): Promise<void> =>
    (reported = reported.then(() =>
      o.circuitReports
        .publish(consumerName, views, claimIdleMs)
        .catch((err: unknown) => o.log.warn({ err }, 'reporting circuit states failed')),
    ));
  return {
    name: 'forwarder',
    isLoopLive: () => {
      const at = forwarder?.lastLoopAt();
      return at !== undefined && o.now() - at <= LOOP_STALE_POLLS * o.settings.worker.pollMs;
    },
    start: async () => {
      const running = createForwarder({
        store: o.store,
        queue: o.queue,
        deadLetters: o.deadLetters,
        breaker: o.settings.worker.breaker,
        egress: createEgressPolicy({ allowPrivate: o.settings.egressAllowPrivate }),
        log: o.log,
        claimIdleMs: o.settings.worker.claimIdleMs,
        pollMs: o.settings.worker.pollMs,
        maxInFlight: o.settings.worker.maxInFlight,
        onAttempt: (outcome, attempt) => metrics.countAttempt(outcome, attempt),
        onCircuitChange: () => void report(forwarder?.circuits() ?? []),
        now: o.now,
        ...(o.random ? { random: o.random } : {}),
      });
      forwarder = running;
      running.start();
      reporting = setInterval(() => void report(running.circuits()), Math.floor(claimIdleMs / 3));
      await running.wentRound();
      const { egressAllowPrivate, worker } = o.settings;
      o.log.info(
        { egressAllowPrivate, maxInFlight: worker.maxInFlight },
        o.mode === 'worker' ? 'forwarding worker started' : 'local forwarding started (memory store)',
      );
    },
    close: async () => {
      clearInterval(reporting);
      await forwarder?.stop();
      if (forwarder) await report([]);
    },
  };
}
