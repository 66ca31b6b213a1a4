import {
  SettingsError,
  addProbeRoutes,
  createHttpApp,
  createMetricsRegistry,
  createProfileServerPart,
  createReadiness,
  listenHttp,
  startParts,
  trackRedis,
  type Logger,
  type Readiness,
  type Running,
  type RunningServer,
} from '@portcullis/kit';
import { toHttpError } from '../error-mapper.js';
import type { Settings } from '../settings.js';
import { createInboxStore } from '../store/factory.js';
import { createForwardingPart } from './forwarding-part.js';
import { createForwardingState } from '../forwarding-store/forwarding-state.js';
import { createRedisForwardQueue } from '../forwarding-store/redis-forward-queue.js';

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
  const queue = createRedisForwardQueue({
    connection: settings.redis,
    prefix: settings.redisKeyPrefix,
    consumerName: settings.worker.consumerName,
    log,
  });
  const registry = createMetricsRegistry({ component: 'inbox-worker' });
  const readiness = createReadiness();
  if (store.connection) trackRedis(readiness.health, 'redis:store', store.connection);
  trackRedis(readiness.health, 'redis:queue', queue.connection);
  const forwarding = createForwardingPart({
    mode: 'worker',
    store,
    queue,
    ...createForwardingState(store, settings, now),
    settings,
    log,
    registry,
    now,
    random: deps.random,
  });
  // before the port opens: /readyz names it until the loop has gone round (startWorker resolves then)
  readiness.addCheck('consumer loop', forwarding.isLoopLive);
  const app = createHttpApp(log.child({ component: 'http' }), toHttpError, { timeouts: settings.timeouts });
  addProbeRoutes(app, readiness);
  app.get('/metrics', async (_request, reply) =>
    reply.type(registry.contentType).send(await registry.metrics()),
  );

  let server: RunningServer | undefined;
  const profiles = createProfileServerPart(settings.worker.profiles, log);
  const running = await startParts(
    [
      profiles,
      { name: 'store', start: () => undefined, close: () => store.close() },
      // before the forwarder, so closed after it: probes and metrics answer while deliveries finish
      {
        name: 'http server',
        start: async () => {
          server = await listenHttp(app, { host: settings.host, port: settings.worker.port });
          log.info({ port: server.port }, 'worker probes and metrics listening');
        },
        close: () => server?.close(),
      },
      forwarding,
    ],
    log,
  );
  return {
    port: server?.port ?? 0,
    profilePort: profiles.port,
    readiness,
    close: async () => {
      readiness.shutDown();
      await running.close();
    },
  };
}
