import type { PasswordHasher } from '@portcullis/accounts';
import {
  createMetricsRegistry,
  createProfileServerPart,
  createReadiness,
  startParts,
  type Logger,
  type Readiness,
} from '@portcullis/kit';
import { createAccountsPart } from './accounts-part.js';
import type { InboxContext } from './context.js';
import { createHttpPart } from './http-part.js';
import { createFeedHub, type FeedHub } from './live/feed-hub.js';
import { createShareStreams } from './live/share-streams.js';
import { createManagedEndpointsParts } from './managed-endpoints-part.js';
import { createInboxMetrics, registerFallbackEvictions } from './metrics.js';
import { createInboxRateLimiter } from './rate-limit.js';
import { createRetentionPart } from './retention-part.js';
import type { Settings } from './settings.js';
import { createSecretsBox } from './signatures/secrets-key.js';
import { createStorePart } from './store-part.js';
import type { InboxStore } from './store/types.js';
import { createForwardingState } from './forwarding-store/forwarding-state.js';
import { createLocalForwardingParts } from './worker/local-forwarding-parts.js';

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
  const readiness = createReadiness({ drainDelayMs: settings.shutdownDelayMs });
  const storePart = createStorePart(settings, { log, now, registry, metrics, readiness });
  const { store } = storePart;
  const hub = createFeedHub({ store, log, ...(deps.liveBlockMs ? { blockMs: deps.liveBlockMs } : {}) });
  const secrets = createSecretsBox(settings.secretsKey, { store: store.kind, log });
  const ctx: InboxContext = { settings, store, hub, metrics, log, now, secrets };
  const accounts = createAccountsPart(settings, {
    log,
    registry,
    readiness,
    passwordHasher: deps.passwordHasher,
  });
  const managed = createManagedEndpointsParts(settings, { store, secrets, log, readiness });
  const limiter = createInboxRateLimiter(settings.ratelimit, { log, now });
  registerFallbackEvictions(registry, () => limiter.fallbackEvictions());
  const shareStreams = createShareStreams({ store, recheckMs: deps.liveBlockMs ?? 5000, log });
  const forwarding = createForwardingState(store, settings, now);
  const localForwarding = createLocalForwardingParts({
    store,
    forwarding,
    settings,
    log,
    registry,
    readiness,
    now,
    random: deps.random,
  });
  const http = await createHttpPart({
    ctx,
    accounts,
    limiter,
    shareStreams,
    forwarding,
    registry,
    readiness,
    forwardedBy: localForwarding.length > 0 ? 'this process' : 'inbox-worker',
  });
  const profiles = createProfileServerPart(settings.profiles, log);

  const running = await startParts(
    [
      profiles,
      storePart,
      accounts,
      { name: 'live feed', start: () => undefined, close: () => hub.close() },
      { name: 'share streams', start: () => undefined, close: () => shareStreams.close() },
      { name: 'rate limiter', start: () => undefined, close: () => limiter.close() },
      createRetentionPart(settings, { store, now, log }),
      managed.sync,
      http,
      managed.firstUpdate,
      // last: its first look at the endpoints finds the first InboxEndpoints (captures before it wait for it)
      ...localForwarding,
    ],
    log,
  );
  return {
    port: http.port() ?? 0,
    profilePort: profiles.port,
    store,
    hub,
    routes: http.routes,
    readiness,
    close: async () => {
      readiness.shutDown();
      await running.close();
    },
  };
}
