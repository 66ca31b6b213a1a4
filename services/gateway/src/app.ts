import { Counter, Histogram } from 'prom-client';
import {
  CookieSessions,
  createAccountsBackend,
  type AccountsBackend,
  type PasswordHasher,
} from '@portcullis/accounts';
import {
  addProbeRoutes,
  createHttpApp,
  createMetricsRegistry,
  createProfileServerPart,
  createReadiness,
  withSpan,
  listenHttp,
  startParts,
  trackRedis,
  type Logger,
  type Readiness,
  type RunningServer,
} from '@portcullis/kit';
import {
  createLocalLimiter,
  createRateLimitClientFromSettings,
  signInFallbackRules,
} from '@portcullis/ratelimit-client';
import { createXdsSubscription, type XdsSubscription } from '@portcullis/xds';
import { Authenticator } from './auth/authenticator.js';
import { createJwt } from './auth/jwt.js';
import { createIdpVerifier } from './auth/idp-verifier.js';
import { createMemoryRefreshStore } from './auth/refresh-store.js';
import { createRedisRefreshStore } from './auth/refresh-store-redis.js';
import { RefreshTokens } from './auth/refresh-tokens.js';
import { createExpiringCache } from './expiring-cache.js';
import { createTokenVerifier, type VerifiedToken } from './auth/token-verifier.js';
import { createAdminToken } from './admin-token.js';
import { addAdminRoutes } from './apps/admin-routes.js';
import { createApiKeyAuth } from './apps/api-key-auth.js';
import type { AppStore } from './apps/app-types.js';
import { createMemoryAppStore } from './apps/memory-app-store.js';
import { createRedisAppStore } from './apps/redis-app-store.js';
import { applyCors } from './cors.js';
import { createCredentialMetrics } from './credential-metrics.js';
import { Dispatcher } from './dispatch.js';
import { toHttpError } from './error-mapper.js';
import { loadKeys } from './keys.js';
import { loadListenerTls } from './listener-tls.js';
import { API_ROUTE_TYPE, routesFromApiRoutes } from './router/api-routes.js';
import { documentContext } from './openapi/openapi-document.js';
import { createOpenApiRoute } from './openapi/openapi-route.js';
import { parseRequestPath } from './request-path.js';
import { buildRouteTable } from './router/build-table.js';
import { routesFromModule, type RoutesDefinition } from './router/routes-module.js';
import { HANDLER_CLASSES, type HandlerClasses } from './handlers/registry.js';
import { routes as codeRoutes } from './routes.js';
import type { Settings } from './settings.js';
import { registerRedisMetrics } from '@portcullis/redis';

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

export async function startGateway(settings: Readonly<Settings>, deps: GatewayDeps): Promise<GatewayApp> {
  const { log } = deps;
  const handlers = deps.handlers ?? HANDLER_CLASSES;
  // first: a certificate that cannot be used stops start-up before anything opens
  const tls = await loadListenerTls(settings.tls, log);
  const keys = await loadKeys({
    jwtSecret: settings.jwt.secret,
    sessionKeys: settings.session.keys,
    stateDir: settings.stateDir,
    log,
  });
  const backend = createAccountsBackend({
    redis: settings.redis,
    ...(deps.passwordHasher ? { hasher: deps.passwordHasher } : {}),
    passwordChecks: settings.passwordChecks,
    log,
  });
  const readiness = createReadiness({ drainDelayMs: settings.shutdownDelayMs });
  if (backend.connection) trackRedis(readiness.health, 'redis:accounts', backend.connection);
  const registry = createMetricsRegistry({ component: 'gateway' });
  const now = deps.now ?? Date.now;
  const jwt = createJwt({ ...settings.jwt, secret: keys.jwtSecret });
  const jwksFetches = new Counter({
    name: 'portcullis_gateway_jwks_fetches_total',
    help: "Fetches of an identity provider's JWKS URL, by issuer and result (ok, unreachable, http_error, invalid).",
    labelNames: ['issuer', 'result'],
    registers: [registry],
  });
  const tokenCache = createExpiringCache<VerifiedToken>({ maxEntries: settings.tokenCacheSize, now });
  const tokens = createTokenVerifier({
    jwt,
    idp: createIdpVerifier({
      issuers: settings.idp.issuers,
      jwks: {
        timeoutMs: settings.idp.jwksTimeoutMs,
        freshness: { minMs: settings.idp.jwksCacheMinMs, maxMs: settings.idp.jwksCacheMaxMs },
        refetchIntervalMs: settings.idp.jwksRefetchIntervalMs,
      },
      log,
      now,
      onFetch: (issuer, result) => jwksFetches.inc({ issuer, result }),
    }),
    cache: tokenCache,
  });
  new Counter({
    name: 'portcullis_gateway_token_cache_lookups_total',
    help: 'Bearer tokens looked up in the verified-token cache, by result: hit (not verified again) or miss.',
    labelNames: ['result'],
    registers: [registry],
    collect() {
      const { hits, misses } = tokenCache.stats();
      this.reset();
      this.inc({ result: 'hit' }, hits);
      this.inc({ result: 'miss' }, misses);
    },
  });
  new Counter({
    name: 'portcullis_gateway_token_cache_evictions_total',
    help: 'Verified tokens dropped from the cache before their expiry, GATEWAY_JWT_CACHE_SIZE being reached.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(tokenCache.stats().evictions);
    },
  });
  const credentials = createCredentialMetrics(registry);
  const redis = backend.redisPool?.next();
  const apps = redis ? createRedisAppStore({ redis, now }) : createMemoryAppStore({ now });
  const refresh =
    settings.refresh.mode === 'off'
      ? undefined
      : new RefreshTokens({
          mode: settings.refresh.mode,
          ttlSeconds: settings.refresh.ttlSeconds,
          accessTtlSeconds: settings.jwt.ttlSeconds,
          jwt,
          store: redis ? createRedisRefreshStore({ redis, now }) : createMemoryRefreshStore(now),
          denylist: backend.denylist,
          cookiePath: `/${settings.basePath}/auth`,
          secureCookie: settings.session.secureCookie,
          now,
          onRefresh: credentials.refresh,
        });
  const auth = new Authenticator({
    mode: settings.auth,
    jwt,
    tokens,
    accounts: backend.accounts,
    cookies: new CookieSessions({
      accounts: backend.accounts,
      sessions: backend.sessions,
      keys: keys.sessionKeys,
      cookieName: settings.session.cookieName,
      ttlSeconds: settings.session.ttlSeconds,
      secure: settings.session.secureCookie,
    }),
    denylist: backend.denylist,
    apiKeys: createApiKeyAuth({
      store: apps,
      header: settings.apiKeyHeader,
      now,
      onResult: credentials.apiKey,
    }),
    ...(refresh ? { refresh } : {}),
  });
  const fallback = createLocalLimiter({
    rules: signInFallbackRules(settings.ratelimit.authDomain, {
      perAddress: settings.ratelimit.fallback.signInPerAddressPerMinute,
      perUsername: settings.ratelimit.fallback.signInPerUsernamePerMinute,
    }),
    maxKeys: settings.ratelimit.fallback.maxKeys,
    ...(deps.now ? { now: deps.now } : {}),
  });
  const ratelimit = createRateLimitClientFromSettings(settings.ratelimit, {
    fallback,
    log,
    xds: { serverUri: settings.ratelimit.xdsServerUri, nodeId: settings.xds.nodeId },
  });
  const code = routesFromModule(deps.routes ?? codeRoutes, handlers);
  const adminToken = createAdminToken(settings.adminToken, log.child({ component: 'admin' }));
  const dispatcher = new Dispatcher(
    {
      settings,
      auth,
      accounts: backend.accounts,
      apps,
      ratelimit,
      handlers,
      log,
      csrf:
        settings.auth === 'session'
          ? { cookieName: settings.session.cookieName, allowedOrigins: settings.corsOrigins }
          : undefined,
      openapi:
        settings.openapi === 'off'
          ? undefined
          : createOpenApiRoute({ ctx: documentContext(settings, handlers), auth, adminToken }),
    },
    buildRouteTable(code, []),
  );

  const xds: XdsSubscription | undefined = settings.xds.serverUrl
    ? createXdsSubscription({
        ...settings.xds,
        log,
        typeUrl: API_ROUTE_TYPE,
        decode: (resources) => buildRouteTable(code, routesFromApiRoutes(resources)),
        apply: (table) => dispatcher.setTable(table),
        describe: (table) => ({ routes: table.routes.length }),
      })
    : undefined;

  if (backend.redisPool) registerRedisMetrics(registry, 'accounts', backend.redisPool);
  const requests = new Counter({
    name: 'portcullis_gateway_requests_total',
    help: 'Requests under the base path, by method and status.',
    labelNames: ['method', 'status'],
    registers: [registry],
  });
  const seconds = new Histogram({
    name: 'portcullis_gateway_request_duration_seconds',
    help: 'Time to answer a request under the base path.',
    buckets: [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
    registers: [registry],
  });
  new Counter({
    name: 'portcullis_gateway_fallback_limiter_evictions_total',
    help: 'Sign-in counters the in-process fallback limiter dropped before their window ended, GATEWAY_FALLBACK_MAX_KEYS being reached.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(fallback.stats().evictions);
    },
  });
  const base = `/${settings.basePath}`;
  const app = createHttpApp(log.child({ component: 'http' }), toHttpError, {
    trustProxy: settings.trustProxy,
    timeouts: settings.timeouts,
    ...(tls ? { tls } : {}),
  });
  app.removeAllContentTypeParsers();
  // Bodies stay unread streams here: handlers read and parse them, upstream routes stream them on.
  app.addContentTypeParser('*', (_request, _payload, done) => done(null, undefined));
  app.addHook('onRequest', (request, reply, done) => {
    applyCors(request, reply, { origins: settings.corsOrigins, credentials: settings.auth === 'session' });
    done();
  });
  const serve = (
    request: Parameters<Dispatcher['handle']>[0],
    reply: Parameters<Dispatcher['handle']>[1],
  ) => {
    return withSpan('portcullis-gateway', 'gateway request', (span) => {
      const path = parseRequestPath(request.url, settings.basePath);
      span.setAttributes({ 'http.method': request.method, 'gateway.path': path.rawSegments.join('/') });
      return dispatcher.handle(request, reply, path);
    });
  };
  app.all(base, serve);
  app.all(`${base}/*`, serve);
  // off, /admin answers ADMIN_DISABLED, unless the base path is there (allowed only while the token is empty)
  if (settings.adminToken !== '' || settings.basePath.split('/')[0] !== 'admin')
    addAdminRoutes(app, {
      store: apps,
      adminToken,
      ...(refresh ? { refresh } : {}),
      limits: settings,
      now,
    });
  addProbeRoutes(app, readiness);
  app.get('/metrics', async (_request, reply) =>
    reply.type(registry.contentType).send(await registry.metrics()),
  );
  app.addHook('onResponse', (request, reply, done) => {
    if (request.url.startsWith(base)) {
      requests.inc({ method: request.method, status: String(reply.statusCode) });
      seconds.observe(reply.elapsedTime / 1000);
    }
    done();
  });

  if (xds) readiness.health.register('xds', false);
  let server: RunningServer | undefined;
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
          await backend.close();
        },
      },
      { name: 'routes', start: () => xds?.start(), close: () => xds?.close() },
      {
        name: 'http server',
        start: async () => {
          server = await listenHttp(app, settings);
        },
        close: async () => {
          await server?.close();
          tls?.close();
        },
      },
      {
        // the port is open meanwhile: /healthz answers, /readyz names xds
        name: 'first routes',
        start: async () => {
          await xds?.firstUpdate();
          readiness.health.set('xds', true);
        },
        close: () => undefined,
      },
    ],
    log,
  );
  return {
    port: server?.port ?? 0,
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
