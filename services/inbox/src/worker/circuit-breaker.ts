import type { CircuitState } from '../contract/forwarding-json.js';
import type { CircuitView } from '../forwarding-store/circuit-reports.js';

/** `INBOX_WORKER_BREAKER_*`: when a target's circuit opens, and for how long. */
export interface BreakerSettings {
  /** Consecutive failures (connection errors, timeouts, 5xx) that open the circuit. */
  failures: number;
  /** The first open period; each failed probe doubles it, up to `maxCooldownMs`. */
  cooldownMs: number;
  maxCooldownMs: number;
}

export type DeliveryVerdict = 'success' | 'failure' | 'neither';

/**
 * One circuit breaker per target (endpoint and URL) in one forwarder. Closed: deliveries go, and
 * `failures` consecutive failures open it. Open: deliveries wait (no attempt made, none counted) until the
 * cool-down ends; then one delivery goes as the probe while the others wait for it (half-open). A probe that
 * succeeds closes the circuit; one that fails opens it again for twice as long (capped). Any answer that is
 * not a failure (2xx, but also 4xx: the target is up) closes it.
 */
export interface CircuitBreakers {
  /**
   * Resolves when a delivery to `key` may go, or false when `waitUntil` or `waitFor` says the forwarder
   * stops. A true answer must be followed by one `report`.
   */
  admit(
    key: CircuitKey,
    wait: { until(at: number): Promise<boolean>; on(event: Promise<void>): Promise<boolean> },
  ): Promise<boolean>;
  report(key: CircuitKey, verdict: DeliveryVerdict): void;
  /** Every target that is not closed with no failures. */
  views(): CircuitView[];
}

export interface CircuitKey {
  endpointId: string;
  target: string;
}

interface Circuit {
  failures: number;
  openUntil: number | undefined;
  cooldownMs: number;
  probing: boolean;
  /** Resolves when the probe under way reports. */
  probed: Promise<void>;
  endProbe: () => void;
}

export function createCircuitBreakers(
  o: BreakerSettings & { now: () => number; /** After each change of a circuit. */ onChange?: () => void },
): CircuitBreakers {
  const circuits = new Map<string, Circuit & CircuitKey>();
  const id = (k: CircuitKey): string => `${k.endpointId} ${k.target}`;
  const circuitOf = (k: CircuitKey): Circuit & CircuitKey => {
    let c = circuits.get(id(k));
    if (!c) {
      c = { ...k, failures: 0, openUntil: undefined, cooldownMs: o.cooldownMs, probing: false, ...probe() };
      circuits.set(id(k), c);
    }
    return c;
  };
  const probe = (): Pick<Circuit, 'probed' | 'endProbe'> => {
    let endProbe = (): void => undefined;
    const probed = new Promise<void>((resolve) => (endProbe = resolve));
    return { probed, endProbe };
  };
  const stateOf = (c: Circuit): CircuitState =>
    c.openUntil === undefined ? 'closed' : c.probing || o.now() >= c.openUntil ? 'half-open' : 'open';

  return {
    async admit(key, wait) {
      for (;;) {
        const c = circuits.get(id(key));
        if (c?.openUntil === undefined) return true;
        if (o.now() < c.openUntil) {
          if (!(await wait.until(c.openUntil))) return false;
          continue;
        }
        if (!c.probing) {
          c.probing = true;
          o.onChange?.();
          return true;
        }
        if (!(await wait.on(c.probed))) return false;
      }
    },
    report(key, verdict) {
      // a closed circuit without failures is not kept
      if (verdict !== 'failure' && !circuits.has(id(key))) return;
      const c = circuitOf(key);
      const wasProbe = c.probing;
      if (wasProbe) {
        c.probing = false;
        c.endProbe();
        Object.assign(c, probe());
      }
      if (verdict === 'success') {
        circuits.delete(id(key));
        o.onChange?.();
        return;
      }
      if (verdict === 'neither') return;
      c.failures += 1;
      if (wasProbe) {
        c.cooldownMs = Math.min(c.cooldownMs * 2, o.maxCooldownMs);
        c.openUntil = o.now() + c.cooldownMs;
      } else if (c.openUntil === undefined && c.failures >= o.failures) {
        c.openUntil = o.now() + c.cooldownMs;
      }
      o.onChange?.();
    },
    views: () =>
      [...circuits.values()].map((c) => ({
        endpointId: c.endpointId,
        target: c.target,
        state: stateOf(c),
        failures: c.failures,
        ...(c.openUntil === undefined ? {} : { openUntil: c.openUntil }),
      })),
  };
}
