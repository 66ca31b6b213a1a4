import { setTimeout as sleep } from 'node:timers/promises';
import { createHealth, type Health } from './health.js';
import { NotReadyError } from './errors.js';
import type { HttpApp } from './http-app.js';

/** The readiness component that fails, for good, when the process starts to shut down. */
const SHUTDOWN_COMPONENT = 'shutdown';

/**
 * Whether the process should get traffic: pushed components (a Redis connection's ready/end events, the
 * first xDS config) and checks computed when asked (a loop that iterated recently).
 */
export interface Readiness {
  readonly health: Health;
  /** `isReady` runs at each `/readyz`; it must be cheap and must not throw. */
  addCheck(component: string, isReady: () => boolean): void;
  /** Fails readiness at once and for good: the first step of a shutdown. */
  shutDown(): void;
  /**
   * On a signal: fails readiness, then after SIGTERM (Kubernetes stopping the pod) waits `drainDelayMs`, so
   * endpoints and load balancers stop sending before the servers stop accepting. SIGINT (a person) does not
   * wait.
   */
  stopTraffic(signal: NodeJS.Signals): Promise<void>;
  /** The components not ready now, in the order registered; empty when ready. */
  failing(): string[];
}

export function createReadiness(o: { drainDelayMs?: number } = {}): Readiness {
  const health = createHealth();
  health.register(SHUTDOWN_COMPONENT, true);
  const checks = new Map<string, () => boolean>();
  const shutDown = (): void => health.set(SHUTDOWN_COMPONENT, false);
  return {
    health,
    addCheck: (component, isReady) => void checks.set(component, isReady),
    shutDown,
    async stopTraffic(signal) {
      shutDown();
      if (signal === 'SIGTERM' && o.drainDelayMs) await sleep(o.drainDelayMs);
    },
    failing: () => [
      ...failingComponents(health),
      ...[...checks].filter(([, isReady]) => !isReady()).map(([name]) => name),
    ],
  };
}

/** The components of `health` that are down, in the order registered. */
export function failingComponents(health: Health): string[] {
  return Object.entries(health.snapshot())
    .filter(([, healthy]) => !healthy)
    .map(([name]) => name);
}

/** What `trackRedis` needs of an ioredis client (or cluster): its status and its connection events. */
export interface RedisConnectionEvents {
  readonly status: string;
  on(event: 'ready' | 'end' | 'close', listener: () => void): unknown;
}

/**
 * Registers `component` as ready while `client`'s connection is: ready on `ready`, not on `close`/`end`
 * (ioredis emits `close` as soon as the socket drops, before reconnecting).
 */
export function trackRedis(health: Health, component: string, client: RedisConnectionEvents): void {
  health.register(component, client.status === 'ready');
  client.on('ready', () => health.set(component, true));
  client.on('close', () => health.set(component, false));
  client.on('end', () => health.set(component, false));
}

/**
 * `GET /healthz`, liveness: 200 `{status: "ok"}` whenever the event loop answers. `GET /readyz`, readiness:
 * 200 `{status: "ready"}`, or 503 `{error: "not ready: redis:store, xds", code: "NOT_READY"}` naming the
 * components not ready (the one error body of every service).
 */
export function addProbeRoutes(app: HttpApp, readiness: Pick<Readiness, 'failing'>): void {
  app.get('/healthz', () => ({ status: 'ok' }));
  app.get('/readyz', () => {
    const failing = readiness.failing();
    if (failing.length > 0) throw new NotReadyError(failing);
    return { status: 'ready' };
  });
}
