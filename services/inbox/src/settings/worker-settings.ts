import { hostname } from 'node:os';
import { readProfileListener, type EnvReader, type ProfileListener } from '@portcullis/kit';

/** Forwarding: the worker (`src/worker-main.ts`, on Redis) or, on the memory store, the inbox's local forwarder. */
export interface WorkerSettings {
  /** Its consumer name in the forwarders group: unique per worker, stable across restarts (the pod name). */
  consumerName: string;
  /** A capture another worker has held this long without a heartbeat is claimed (XAUTOCLAIM). */
  claimIdleMs: number;
  /** How long one XREADGROUP blocks, and how often the managed endpoints are re-read. */
  pollMs: number;
  /** Captures forwarded at once by one worker. */
  maxInFlight: number;
  /** Each target's circuit breaker, per worker (see worker/circuit-breaker.ts). */
  breaker: { failures: number; cooldownMs: number; maxCooldownMs: number };
  /** Its `/healthz`, `/readyz` and `/metrics` (on `host`); 0 picks a free port. */
  port: number;
  /** `INBOX_WORKER_DEBUG_PORT` (on `INBOX_DEBUG_HOST`): the worker's `/debug/pprof/`; off by default. */
  profiles: ProfileListener | undefined;
}

export function readWorkerSettings(env: EnvReader): WorkerSettings {
  const worker: WorkerSettings = {
    consumerName: env.str('INBOX_WORKER_NAME', { default: hostname() }),
    // a worker marks its captures live every third of this, so no more often than every 10ms
    claimIdleMs: env.durationMs('INBOX_WORKER_CLAIM_IDLE', { default: '1m', min: '30ms', max: '24h' }),
    pollMs: env.durationMs('INBOX_WORKER_POLL_INTERVAL', { default: '5s', min: '10ms', max: '5m' }),
    maxInFlight: env.int('INBOX_WORKER_MAX_IN_FLIGHT', { default: 32, min: 1, max: 1024 }),
    breaker: {
      failures: env.int('INBOX_WORKER_BREAKER_FAILURES', { default: 5, min: 1, max: 1000 }),
      cooldownMs: env.durationMs('INBOX_WORKER_BREAKER_COOLDOWN', {
        default: '30s',
        min: '10ms',
        max: '1h',
      }),
      maxCooldownMs: env.durationMs('INBOX_WORKER_BREAKER_MAX_COOLDOWN', {
        default: '10m',
        min: '10ms',
        max: '24h',
      }),
    },
    // after the gateway's 8088, the inbox's 8089 and the operator's 8090 in local mode
    port: env.int('INBOX_WORKER_PORT', { default: 8091, min: 0, max: 65_535 }),
    profiles: readProfileListener(env, { host: 'INBOX_DEBUG_HOST', port: 'INBOX_WORKER_DEBUG_PORT' }),
  };
  if (worker.breaker.maxCooldownMs < worker.breaker.cooldownMs) {
    env.problem('INBOX_WORKER_BREAKER_MAX_COOLDOWN: must be at least INBOX_WORKER_BREAKER_COOLDOWN');
  }
  return worker;
}
