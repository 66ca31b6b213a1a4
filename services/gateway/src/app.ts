import type { AccountsBackend, PasswordHasher } from '@portcullis/accounts';
import {
  createMetricsRegistry,
  createProfileServerPart,
  createReadiness,
  startParts,
  type Logger,
  type Readiness,
  createMetricsReader,
} from '@portcullis/kit';
import { createGatewayAccounts } from './accounts-backend.js';
import { createAdminToken } from './admin-token.js';
import type { AppStore } from './apps/app-types.js';
import { createGatewayAuth } from './auth/gateway-auth.js';
import type { Dispatcher } from './dispatch.js';
import { createGatewayDispatcher } from './gateway-dispatcher.js';
import type { HandlerClasses } from './handlers/types.js';
import { createHttpServerPart } from './http-server.js';
import { loadKeys } from './keys.js';
import { loadListenerTls } from './listener-tls.js';
import { createUpstreamAgent } from './proxy/upstream-agent.js';
import { createGatewayRateLimitClient } from './rate-limit-client.js';
import { createRouteSubscription } from './router/route-subscription.js';
import { routesFromModule, type RoutesDefinition } from './router/routes-module.js';
import { HANDLER_CLASSES, routes as codeRoutes } from './routes.js';
import type { Settings } from './settings.js';

export interface GatewayApp {
  port: number;
  /** The `/debug/pprof/` port (`GATEWAY_DEBUG_PORT`); undefined when off. */
  profilePort: number | undefined;
  dispatcher: Dispatcher;
  backend: AccountsBackend;
  /** Applications, API keys and users' roles: in the accounts' Redis, or in memory with them. */
  apps: AppStore;
  /** `/readyz`: Redis connected (when configured), first routes applied (xDS mode), not shutting down. */
  readiness: Readiness;
  /** Fails readiness at once, then drains the server, then closes the backends. */
  close(): Promise<void>;
}

export interface GatewayDeps {
  log: Logger;
  /** The routes module and handler classes; the shipped ones unless given (tests add their own). */
  routes?: RoutesDefinition;
  handlers?: HandlerClasses;
  /** Production scrypt parameters unless given (tests pass cheap ones). */
  passwordHasher?: PasswordHasher;
  /** The clock of the fallback limiter, the identity providers' key sets and the verified-token cache. */
  now?: () => number;
}

/**
 * Starts the gateway: the listener's certificate and the keys first (a bad one stops start-up before anything
 * opens), then accounts, auth, the rate-limit client and the dispatcher, then the parts below in order.
 */
export async function startGateway(settings: Readonly<Settings>, deps: GatewayDeps): Promise<GatewayApp> {
  const { log } = deps;
  const now = deps.now ?? Date.now;
  const handlers = deps.handlers ?? HANDLER_CLASSES;
  const tls = await loadListenerTls(settings.tls, log);
  const keys = await loadKeys({
    jwtSecret: settings.jwt.secret,
    sessionKeys: settings.session.keys,
    stateDir: settings.stateDir,
    log,
  });
  const readiness = createReadiness({ drainDelayMs: settings.shutdownDelayMs });
  const registry = createMetricsRegistry({ component: 'gateway' });
  const backend = createGatewayAccounts(settings, {
    readiness,
    registry,
    log,
    passwordHasher: deps.passwordHasher,
  });
  const { auth, apps, refresh } = createGatewayAuth(settings, { keys, backend, registry, log, now });
  const ratelimit = createGatewayRateLimitClient(settings, { log, registry, ...(deps.now ? { now } : {}) });
  const upstreams = createUpstreamAgent({ maxConnections: settings.upstreamMaxConnections });
  const code = routesFromModule(deps.routes ?? codeRoutes, handlers);
  const adminToken = createAdminToken(settings.adminToken, log.child({ component: 'admin' }));
  const dispatcher = createGatewayDispatcher(settings, {
    auth,
    accounts: backend.accounts,
    apps,
    ratelimit,
    upstreams,
    handlers,
    adminToken,
    code,
    log,
  });
  const routes = createRouteSubscription(settings, {
    code,
    apply: (table) => dispatcher.setTable(table),
    readiness,
    log,
  });
  const server = createHttpServerPart(settings, {
    dispatcher,
    apps,
    adminToken,
    refresh,
    readiness,
    registry,
    metricsText: createMetricsReader(registry),
    tls,
    log,
    now,
  });
  const profiles = createProfileServerPart(settings.profiles, log);
  // backends first, so closed last: requests draining from the server still reach them
  const running = await startParts(
    [
      profiles,
      {
        name: 'backends',
        start: () => undefined,
        close: async () => {
          ratelimit.close();
          await Promise.all([backend.close(), upstreams.close()]);
        },
      },
      routes.subscribe,
      server,
      routes.firstRoutes,
    ],
    log,
  );
  return {
    port: server.port ?? 0,
    profilePort: profiles.port,
    dispatcher,
    backend,
    apps,
    readiness,
    close: async () => {
      readiness.shutDown();
      await running.close();
    },
  };
}
