import {
  SettingsError,
  createMetricsRegistry,
  createProfileServerPart,
  createReadiness,
  startParts,
  trackRedis,
  type Logger,
  type Readiness,
  type Running,
} from '@portcullis/kit';
import type { Settings } from '../settings.js';
import { createInboxStore } from '../store/factory.js';
import { createProbeServerPart } from './probe-server-part.js';
import { createWorkerForwardingPart } from './worker-forwarding-part.js';

export interface WorkerApp extends Running {
  /** The bound port of `/healthz`, `/readyz` and `/metrics`. */
  port: number;
  /** The `/debug/pprof/` port (`INBOX_WORKER_DEBUG_PORT`); undefined when off. */
  profilePort: number | undefined;
  readiness: Readiness;
}

export interface WorkerDeps {
  log: Logger;
  now?: () => number;
  random?: () => number;
}

/**
 * The forwarding worker: store → HTTP server (probes, metrics) → forwarder, closed in reverse; resolves once
 * the forwarder's loop has gone round, not ready (`consumer loop`) from before the port opens until then. It
 * needs Redis: the memory store lives inside one inbox process, which forwards for itself (app.ts).
 */
export async function startWorker(settings: Readonly<Settings>, deps: WorkerDeps): Promise<WorkerApp> {
  if (settings.redis.url === '') {
    throw new SettingsError([
      'INBOX_REDIS_URL: the forwarding worker needs Redis (the memory store is per process: without Redis the inbox forwards itself)',
    ]);
  }
  const log = deps.log.child({ component: 'inbox-worker', consumer: settings.worker.consumerName });
  const now = deps.now ?? Date.now;
  const store = createInboxStore(settings, { log });
  const registry = createMetricsRegistry({ component: 'inbox-worker' });
  const readiness = createReadiness();
  if (store.connection) trackRedis(readiness.health, 'redis:store', store.connection);
  const forwarding = createWorkerForwardingPart(settings, {
    store,
    log,
    registry,
    readiness,
    now,
    random: deps.random,
  });
  const probes = createProbeServerPart(settings, { readiness, registry, log });
  const profiles = createProfileServerPart(settings.worker.profiles, log);

  const running = await startParts(
    [
      profiles,
      { name: 'store', start: () => undefined, close: () => store.close() },
      // before the forwarder, so closed after it: probes and metrics answer while deliveries finish
      probes,
      forwarding,
    ],
    log,
  );
  return {
    port: probes.port() ?? 0,
    profilePort: profiles.port,
    readiness,
    close: async () => {
      readiness.shutDown();
      await running.close();
    },
  };
}
