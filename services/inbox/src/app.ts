import { createAccountsBackend, type PasswordHasher } from '@portcullis/accounts';
import {
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
  type RunningServer,
} from '@portcullis/kit';
import { createXdsSubscription, type XdsSubscription } from '@portcullis/xds';
import { registerAccountRoutes } from './accounts/account-routes.js';
import { CSRF_HEADER, checkInboxCsrf } from './accounts/csrf.js';
import { createWebSessions } from './accounts/web-sessions.js';
import { createAuthorize } from './accounts/access.js';
import { registerAdminRoutes } from './api/admin-routes.js';
import { registerDeadLetterRoutes } from './api/dead-letter-routes.js';
import { registerEndpointRoutes } from './api/endpoint-routes.js';
import { buildOpenApiDocument } from './api/openapi-document.js';
import { recordRoutes, registerOpenApiRoute } from './api/openapi-route.js';
import { registerRequestActions } from './api/request-actions.js';
import { registerShareRoutes } from './api/share-routes.js';
import { registerSignatureRoutes } from './api/signature-routes.js';
import { registerExportRoutes } from './export/export-routes.js';
import { registerCaptureRoutes } from './capture/capture-routes.js';
import type { InboxContext } from './context.js';
import { endpointsFromResources, INBOX_ENDPOINT_TYPE } from './managed-endpoints/inbox-endpoint-resources.js';
import { createManagedSync, type ManagedSync } from './managed-endpoints/managed-sync.js';
import { toHttpError } from './error-mapper.js';
import { createFeedHub, type FeedHub } from './live/feed-hub.js';
import { createShareStreams } from './live/share-streams.js';
import { registerSseRoute } from './live/sse-route.js';
import { createInboxMetrics, registerFallbackEvictions } from './metrics.js';
import { registerEndpointSettingsRoutes } from './api/endpoint-settings-routes.js';
import { createInboxRateLimiter } from './rate-limit.js';
import type { Settings } from './settings.js';
import { createSecretsBox } from './signatures/secrets-key.js';
import { createInboxStore } from './store/factory.js';
import type { InboxStore } from './store/types.js';
import { registerWebRoutes } from './web/web-routes.js';
import { createEgressPolicy } from './delivery/egress-policy.js';
import { createForwardingPart } from './worker/forwarding-part.js';
import { createForwardingState } from './forwarding-store/forwarding-state.js';
import { createMemoryForwardQueue } from './forwarding-store/memory-forward-queue.js';
import { registerRedisMetrics } from '@portcullis/redis';

export interface InboxApp {
  port: number;
  /** The `/debug/pprof/` port (`INBOX_DEBUG_PORT`); undefined when off. */
  profilePort: number | undefined;
  store: InboxStore;
  hub: FeedHub;
  /** Every route served, as `METHOD /url` in fastify's spelling (the OpenAPI document is checked against it). */
  routes: readonly string[];
  /** `/readyz`: Redis connected (when configured), first InboxEndpoints applied (xDS mode), not shutting down. */
  readiness: Readiness;
  /** Fails readiness at once, then drains the server, then closes the backends. */
  close(): Promise<void>;
}

export interface InboxDeps {
  log: Logger;
  now?: () => number;
  /**
   * How long one live read blocks (and how often a quiet one checks its endpoint still exists, and open
   * share streams their share); 5 s unless given.
   */
  liveBlockMs?: number;
  /** Production scrypt parameters unless given (tests pass cheap ones). */
  passwordHasher?: PasswordHasher;
  /** In [0, 1): the local forwarder's retry jitter. */
  random?: () => number;
}

/**
 * Metrics → store → accounts → live feed → rate limiter → retention → managed endpoints (xDS) → HTTP server →
 * first InboxEndpoints → local forwarder (memory store only); closed in reverse.
 */
export async function startInbox(settings: Readonly<Settings>, deps: InboxDeps): Promise<InboxApp> {
  const { log } = deps;
  const now = deps.now ?? Date.now;
  const registry = createMetricsRegistry({ component: 'inbox' });
  const metrics = createInboxMetrics(registry);
  const store = createInboxStore(settings, {
    log,
    now,
    registry,
    onFull: (what) => metrics.memoryStoreFull.inc({ what }),
    onTrimmed: (reason, count) => metrics.retentionTrimmed.inc({ reason }, count),
  });
  const hub = createFeedHub({ store, log, ...(deps.liveBlockMs ? { blockMs: deps.liveBlockMs } : {}) });
  const secrets = createSecretsBox(settings.secretsKey, { store: store.kind, log });
  const ctx: InboxContext = { settings, store, hub, metrics, log, now, secrets };
  const sync: ManagedSync = createManagedSync({ store, log });
  // a Redis restarted without persistence comes back without the managed endpoints: the last set is put back
  const stopReapplying = store.onReconnect(() => void sync.reapply());
  const xds: XdsSubscription | undefined = settings.xds.serverUrl
    ? createXdsSubscription({
        ...settings.xds,
        log,
        typeUrl: INBOX_ENDPOINT_TYPE,
        decode: (resources) => endpointsFromResources(resources, { secrets, log }),
        apply: (endpoints) => sync.apply(endpoints),
        describe: (endpoints) => ({ endpoints: endpoints.length }),
      })
    : undefined;

  const backend = createAccountsBackend({
    redis: settings.redis,
    ...(deps.passwordHasher ? { hasher: deps.passwordHasher } : {}),
    passwordChecks: settings.passwordChecks,
    log,
  });
  if (backend.redisPool) registerRedisMetrics(registry, 'accounts', backend.redisPool);
  const readiness = createReadiness({ drainDelayMs: settings.shutdownDelayMs });
  if (store.connection) trackRedis(readiness.health, 'redis:store', store.connection);
  if (backend.connection) trackRedis(readiness.health, 'redis:accounts', backend.connection);
  if (xds) readiness.health.register('xds', false);
  const sessions = createWebSessions({ backend, settings: settings.accounts, log });
  const app = createHttpApp(log.child({ component: 'http' }), toHttpError, {
    trustProxy: settings.trustProxy,
    timeouts: settings.timeouts,
    maxJsonDepth: settings.maxBodyDepth,
  });
  const routes = recordRoutes(app);
  const csrf = {
    cookieName: settings.accounts.cookieName,
    allowedOrigins: [new URL(settings.publicUrl).origin],
    requiredHeader: CSRF_HEADER,
  };
  app.addHook('onRequest', (request, _reply, done) => {
    try {
      checkInboxCsrf(request, csrf);
      done();
    } catch (err: unknown) {
      done(err as Error);
    }
  });
  const authorize = createAuthorize({ store, adminToken: settings.adminToken, sessions });
  const limiter = createInboxRateLimiter(settings.ratelimit, { log, now });
  registerFallbackEvictions(registry, () => limiter.fallbackEvictions());
  const egress = createEgressPolicy({ allowPrivate: settings.egressAllowPrivate });
  await registerCaptureRoutes(app, ctx, limiter);
  registerEndpointRoutes(app, ctx, { authorize, limiter, sessions });
  registerEndpointSettingsRoutes(app, ctx, authorize);
  registerRequestActions(app, ctx, { authorize, limiter, egress });
  const shareStreams = createShareStreams({ store, recheckMs: deps.liveBlockMs ?? 5000, log });
  registerShareRoutes(app, ctx, { authorize, shareStreams });
  registerAdminRoutes(app, ctx);
  registerSignatureRoutes(app, ctx, authorize);
  registerExportRoutes(app, ctx, { authorize, limiter });
  const forwardingState = createForwardingState(store, settings, now);
  registerDeadLetterRoutes(app, ctx, { authorize, forwarding: forwardingState });
  registerAccountRoutes(app, ctx, { backend, sessions, limiter });
  registerWebRoutes(app, { webDir: settings.webDir, log });
  registerOpenApiRoute(app, buildOpenApiDocument({ cookieName: settings.accounts.cookieName }));
  const closeStreams = registerSseRoute(app, ctx, { authorize, shareStreams });
  // fastify's close waits for open requests, and a live stream never ends by itself
  app.addHook('preClose', (done) => {
    closeStreams();
    done();
  });
  // with Redis the worker processes forward; the memory store is readable from this process only
  const forwarding =
    store.kind === 'memory'
      ? createForwardingPart({
          mode: 'local',
          store,
          queue: createMemoryForwardQueue({ store, log, now }),
          ...forwardingState,
          settings,
          log,
          registry,
          now,
          random: deps.random,
        })
      : undefined;
  addProbeRoutes(app, readiness);
  app.get('/metrics', async (_request, reply) =>
    reply.type(registry.contentType).send(await registry.metrics()),
  );

  let trimTimer: NodeJS.Timeout | undefined;
  let server: RunningServer | undefined;
  const profiles = createProfileServerPart(settings.profiles, log);
  const running = await startParts(
    [
      profiles,
      { name: 'store', start: () => undefined, close: () => store.close() },
      { name: 'accounts', start: () => undefined, close: () => backend.close() },
      { name: 'live feed', start: () => undefined, close: () => hub.close() },
      { name: 'share streams', start: () => undefined, close: () => shareStreams.close() },
      { name: 'rate limiter', start: () => undefined, close: () => limiter.close() },
      {
        name: 'retention',
        start: () => {
          trimTimer = setInterval(() => {
            store.trimByAge(now()).catch((err: unknown) => log.warn({ err }, 'retention trim failed'));
          }, settings.trimIntervalMs);
          trimTimer.unref();
        },
        close: () => clearInterval(trimTimer),
      },
      {
        name: 'managed endpoints',
        start: () => xds?.start(),
        close: async () => {
          stopReapplying();
          sync.close();
          await xds?.close();
        },
      },
      {
        name: 'http server',
        start: async () => {
          server = await listenHttp(app, settings);
          const forwardedBy = forwarding ? 'this process' : 'inbox-worker';
          log.info({ port: server.port, store: store.kind, forwardedBy }, 'inbox listening');
        },
        close: () => server?.close(),
      },
      {
        // the port is open meanwhile: /healthz answers, /readyz names xds
        name: 'first InboxEndpoints',
        start: async () => {
          await xds?.firstUpdate();
          readiness.health.set('xds', true);
        },
        close: () => undefined,
      },
      // last: its first look at the endpoints finds the first InboxEndpoints (captures before it wait for it)
      ...(forwarding
        ? [
            forwarding,
            {
              name: 'local forwarder readiness',
              start: () => readiness.addCheck('local forwarder', forwarding.isLoopLive),
              close: () => undefined,
            },
          ]
        : []),
    ],
    log,
  );
  return {
    port: server?.port ?? 0,
    profilePort: profiles.port,
    store,
    hub,
    routes,
    readiness,
    close: async () => {
      readiness.shutDown();
      await running.close();
    },
  };
}
