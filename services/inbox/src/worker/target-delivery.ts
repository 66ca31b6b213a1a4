import type { ForwardTarget } from '@portcullis/config';
import type { Logger } from '@portcullis/kit';
import type { Capture } from '../contract/capture-records.js';
import {
  createCircuitBreakers,
  type BreakerSettings,
  type CircuitKey,
  type DeliveryVerdict,
} from './circuit-breaker.js';
import type { CircuitView } from '../forwarding-store/circuit-reports.js';
import { createKeepAlive, deliver, type DeliveryResult } from '../delivery/deliver.js';
import type { EgressPolicy } from '../delivery/egress-policy.js';
import { buildForwardRequest } from '../delivery/forward-request.js';
import type { StopSignal } from './stop-signal.js';
import { createTargetSlots } from './target-slots.js';

/** A delivery's result, failures marked retryable (the target's fault) or not (refused before sending). */
export type AttemptResult =
  Exclude<DeliveryResult, { kind: 'failed' }> | { kind: 'failed'; error: string; retryable: boolean };

export interface TargetDeliveryOptions {
  breaker: BreakerSettings;
  egress: EgressPolicy;
  /** Told why a target is refused, which the attempt's record does not say. */
  log: Logger;
  stop: StopSignal;
  now: () => number;
  /** Deliveries under way at most, over every target: idle connections kept per target. */
  maxInFlight: number;
  /** Told each time a target's circuit changes. */
  onCircuitChange?: (() => void) | undefined;
}

/** Deliveries to the forward targets, each target with its slots, its circuit breaker and kept-alive connections. */
export interface TargetDelivery {
  /**
   * One attempt once the target has a free slot (`maxConcurrent`) and its circuit lets it go; the waits are
   * not attempts. `stopped` when the forwarder stops while waiting.
   */
  attempt(key: CircuitKey, capture: Capture, target: ForwardTarget): Promise<AttemptResult | 'stopped'>;
  /** The targets whose circuit is not closed, or has failures. */
  circuits(): CircuitView[];
  /** Closes the kept-alive connections. */
  close(): void;
}

export function createTargetDelivery(o: TargetDeliveryOptions): TargetDelivery {
  const keepAlive = createKeepAlive({ maxIdle: o.maxInFlight });
  const slots = createTargetSlots();
  const breakers = createCircuitBreakers({
    ...o.breaker,
    now: o.now,
    ...(o.onCircuitChange ? { onChange: o.onCircuitChange } : {}),
  });

  const attemptDelivery = async (capture: Capture, target: ForwardTarget): Promise<AttemptResult> => {
    const built = buildForwardRequest(capture, target);
    // the same on every attempt: recorded once and dead-lettered, the capture's other targets then tried
    if (!built.sendable) return { kind: 'failed', error: `not sent: ${built.reason}`, retryable: false };
    const { request } = built;
    const decision = await o.egress.check(request.url);
    if (!decision.allowed) {
      const { reason, detail } = decision;
      o.log.warn({ target: request.url.host, reason, detail }, 'target refused by the egress policy');
      return { kind: 'failed', error: `egress refused: ${reason}`, retryable: false };
    }
    const result = await deliver(request, {
      pinned: decision,
      timeoutMs: target.timeoutSeconds * 1000,
      keepAlive,
    });
    return result.kind === 'failed' ? { ...result, retryable: true } : result;
  };

  return {
    async attempt(key, capture, target) {
      const release = await slots.acquire(
        `${key.endpointId} ${key.target}`,
        target.maxConcurrent,
        o.stop.signal,
      );
      if (!release) return 'stopped';
      try {
        if (!(await breakers.admit(key, o.stop))) return 'stopped';
        let verdict: DeliveryVerdict = 'neither';
        try {
          // not aborted by stop(): a delivery under way finishes and is recorded, so it is not sent twice
          const result = await attemptDelivery(capture, target);
          verdict = breakerVerdict(result);
          return result;
        } finally {
          breakers.report(key, verdict);
        }
      } finally {
        release();
      }
    },
    circuits: () => breakers.views(),
    close: () => keepAlive.close(),
  };
}

/** What a delivery's result tells the circuit breaker: the target is down (failure) or up (success). */
function breakerVerdict(result: AttemptResult): DeliveryVerdict {
  if (result.kind === 'answered') return result.status >= 500 ? 'failure' : 'success';
  // an egress refusal, or a capture that cannot be sent, says nothing of the target
  if (result.kind === 'failed') return result.retryable ? 'failure' : 'neither';
  return 'neither';
}
