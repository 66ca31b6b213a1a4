import type { Logger } from '@portcullis/kit';
import type { InboxStore } from '../store/types.js';
import { createAttemptRecorder } from './attempt-recorder.js';
import { forwardCapture } from './capture-forwarding.js';
import type { BreakerSettings } from './circuit-breaker.js';
import type { CircuitView } from '../forwarding-store/circuit-reports.js';
import { startClaimLoop } from './claim-loop.js';
import type { DeadLetters } from '../forwarding-store/dead-letters.js';
import type { EgressPolicy } from '../delivery/egress-policy.js';
import { createForwardEndpoints } from './forward-endpoints.js';
import type { ForwardQueue } from '../forwarding-store/forward-queue.js';
import { createInFlight } from './in-flight.js';
import { createReadLoop } from './read-loop.js';
import { createStopSignal } from './stop-signal.js';
import { createTargetDelivery } from './target-delivery.js';
import type { AttemptOutcome } from './worker-metrics.js';

export interface ForwarderOptions {
  store: InboxStore;
  queue: ForwardQueue;
  deadLetters: DeadLetters;
  breaker: BreakerSettings;
  egress: EgressPolicy;
  log: Logger;
  /** A capture idle this long is claimed; live ones are marked every third of it. `INBOX_WORKER_CLAIM_IDLE`, ≥ 30ms. */
  claimIdleMs: number;
  pollMs: number;
  maxInFlight: number;
  now?: () => number;
  /** In [0, 1): the jitter. */
  random?: () => number;
  /** Told each time a target's circuit changes (see `circuits()`). */
  onCircuitChange?: () => void;
  /** Told of each attempt recorded: its outcome and number (1 for the first). */
  onAttempt?: (outcome: AttemptOutcome, attempt: number) => void;
}

export interface Forwarder {
  start(): void;
  /**
   * Stops reading and claiming, lets each delivery under way finish and be recorded, then returns. A capture
   * not finished by then (a retry still to wait for, a target still to try) stays pending, unacknowledged,
   * for a worker to claim: at least once. The queue is closed last.
   */
  stop(): Promise<void>;
  /**
   * When the reading loop last went round (`now()` milliseconds), past reading the endpoints; undefined
   * before it first has. Readiness checks it is recent.
   */
  lastLoopAt(): number | undefined;
  /** Resolves once the loop has first gone round (the store answered), or once stopped. */
  wentRound(): Promise<void>;
  /** Captures being forwarded now. */
  inFlightCount(): number;
  /** The managed endpoints with a forward target enabled, as last read. */
  endpointIds(): string[];
  /** The targets whose circuit is not closed, or has failures. */
  circuits(): CircuitView[];
}

/**
 * Forwards each capture of a managed endpoint to its enabled targets, one after another, and acknowledges
 * it once every target has an outcome recorded (delivered, or dead after its attempts). Retries wait in
 * this process; the wait is recorded (`nextAttemptAt`), so a worker that claims the capture resumes it.
 */
export function createForwarder(o: ForwarderOptions): Forwarder {
  const log = o.log.child({ component: 'forwarder' });
  const now = o.now ?? Date.now;
  const stop = createStopSignal(now);
  const endpoints = createForwardEndpoints(o);
  const delivery = createTargetDelivery({ ...o, log, stop, now });
  const recorder = createAttemptRecorder({ ...o, log });
  const forwarding = { ...o, endpoints, delivery, recorder, stop, now, random: o.random ?? Math.random };
  const inFlight = createInFlight({ forward: (item) => forwardCapture(forwarding, item), stop, log });
  const reading = createReadLoop({ ...o, endpoints, inFlight, stop, log, now });
  let claims: { close(): void } | undefined;
  return {
    start() {
      reading.start();
      claims = startClaimLoop({ ...o, endpoints, inFlight, stop, log });
    },
    async stop() {
      stop.stop();
      o.queue.stopReading();
      await reading.ended();
      await inFlight.allDone();
      claims?.close();
      o.queue.close();
      delivery.close();
    },
    lastLoopAt: () => reading.lastLoopAt(),
    wentRound: () => reading.wentRound(),
    inFlightCount: () => inFlight.size(),
    endpointIds: () => endpoints.ids(),
    circuits: () => delivery.circuits(),
  };
}
