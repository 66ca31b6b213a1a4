import { Counter, Histogram } from 'prom-client';
import {
  AccountsBackendError,
  CookieSessions,
  CsrfError,
  PasswordChecksBusyError,
  createAccountsBackend,
  type AccountsBackend,
  type PasswordHasher,
} from '@portcullis/accounts';
import { ConfigError } from '@portcullis/config';
import {
  createHttpApp,
  createMetricsRegistry,
  withSpan,
  listenHttp,
  startParts,
  type ErrorMapper,
  type Logger,
  type RunningServer,
} from '@portcullis/kit';
import {
  createLocalLimiter,
  createLocalRateLimitClient,
  createRateLimitClient,
  type RateLimitClient,
} from '@portcullis/ratelimit-client';
import { createSotwClient, type SotwClient } from '@portcullis/xds';
import { Authenticator } from './auth/authenticator.js';
import { createJwt } from './auth/jwt.js';
import { applyCors } from './cors.js';
import { Dispatcher } from './dispatch.js';
import { HttpError } from './errors.js';
import { loadKeys } from './keys.js';
import { signInFallbackRules } from './rate-limit.js';
import { API_ROUTE_TYPE, routesFromApiRoutes } from './router/api-routes.js';
import { parseRequestPath } from './request-path.js';
import { RouteTable } from './router/route-table.js';
import type { GatewayRoute } from './router/route-types.js';
import { routesFromModule, type RoutesDefinition } from './router/routes-module.js';
import { HANDLER_CLASSES, type HandlerClasses } from './handlers/registry.js';
import { routes as codeRoutes } from './routes.js';
import { parseParameterSpecs } from './sanitize/index.js';
import type { Settings } from './settings.js';
import { registerRedisMetrics } from '@portcullis/redis';

export interface GatewayApp {
  port: number;
  dispatcher: Dispatcher;
  backend: AccountsBackend;
  close(): Promise<void>;
}

/** Everything the gateway answers with is `{"error": …}` JSON; a status code the error carries wins. */
export const toHttpError: ErrorMapper = (err) => {
  if (err instanceof HttpError) {
    return { statusCode: err.statusCode, body: { error: err.message, code: err.code }, headers: err.headers };
  }
  if (err instanceof CsrfError) return { statusCode: 403, body: { error: err.message, code: err.code } };
  if (err instanceof PasswordChecksBusyError) {
    return {
      statusCode: 503,
      body: { error: err.message, code: err.code },
      headers: { 'retry-after': String(err.retryAfterSeconds) },
    };
  }
  // the sessions' Redis is down: a dead backend is 503, as the inbox answers it
  if (err instanceof AccountsBackendError) {
    return { statusCode: 503, body: { error: err.message, code: err.code } };
  }
  const status = (err as { statusCode?: unknown } | null)?.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    return { statusCode: status, body: { error: (err as Error).message, code: 'BAD_REQUEST' } };
  }
  return { statusCode: 500, body: { error: 'Internal Server Error', code: 'INTERNAL' } };
};

export interface GatewayDeps {
  log: Logger;
  /** The routes module and handler classes; the shipped ones unless given (tests add their own). */
  routes?: RoutesDefinition;
  handlers?: HandlerClasses;
  /** Production scrypt parameters unless given (tests pass cheap ones). */
  passwordHasher?: PasswordHasher;
  /** The fallback limiter's clock. */
  now?: () => number;
}

export async function startGateway(settings: Readonly<Settings>, deps: GatewayDeps): Promise<GatewayApp> {
  const { log } = deps;
  const handlers = deps.handlers ?? HANDLER_CLASSES;
  const keys = await loadKeys({
    jwtSecret: settings.jwt.secret,
    sessionKeys: settings.session.keys,
    stateDir: settings.stateDir,
    log,
  });
  const backend = createAccountsBackend({
    redis: settings.redis,
    log,
    ...(deps.passwordHasher ? { hasher: deps.passwordHasher } : {}),
    passwordChecks: settings.passwordChecks,
  });
  const auth = new Authenticator({
    mode: settings.auth,
    jwt: createJwt({ ...settings.jwt, secret: keys.jwtSecret }),
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
  });
  const fallback = createLocalLimiter({
    rules: signInFallbackRules(settings.ratelimit),
    maxKeys: settings.ratelimit.fallback.maxKeys,
    ...(deps.now ? { now: deps.now } : {}),
  });
  const ratelimit: RateLimitClient =
    settings.ratelimit.target === ''
      ? createLocalRateLimitClient(fallback)
      : createRateLimitClient({
          target: settings.ratelimit.target,
          ...(settings.ratelimit.target.startsWith('xds:')
            ? { xds: { serverUri: settings.ratelimit.xdsServerUri, nodeId: settings.xds.nodeId } }
            : {}),
          timeoutMs: settings.ratelimit.timeoutMs,
          failureMode: settings.ratelimit.failureMode,
          fallback,
          tls: settings.ratelimit.tls,
          log,
        });
  const code = routesFromModule(deps.routes ?? codeRoutes, handlers);
  const buildTable = (dynamic: readonly GatewayRoute[]): RouteTable => {
    const all = [...code, ...dynamic];
    for (const route of all) parseParameterSpecs(route.requiredParams);
    return new RouteTable(all);
  };
  const dispatcher = new Dispatcher(
    {
      settings,
      auth,
      accounts: backend.accounts,
      ratelimit,
      handlers,
      log,
      csrf:
        settings.auth === 'session'
          ? { cookieName: settings.session.cookieName, allowedOrigins: settings.corsOrigins }
          : undefined,
    },
    buildTable([]),
  );

  const xds: SotwClient | undefined = settings.xds.serverUrl
    ? createSotwClient({
        serverUrl: settings.xds.serverUrl,
        nodeId: settings.xds.nodeId,
        typeUrls: [API_ROUTE_TYPE],
        retryIntervalMs: settings.xds.retryIntervalMs,
        log,
        onResources: (_typeUrl, version, resources) => {
          try {
            const table = buildTable(routesFromApiRoutes(resources));
            dispatcher.setTable(table);
            log.info({ version, routes: table.routes.length }, 'routes updated');
          } catch (err: unknown) {
            log.error({ version, err }, 'routes rejected, keeping the current ones');
            throw err instanceof ConfigError ? err : new ConfigError([(err as Error).message]);
          }
        },
      })
    : undefined;

  const registry = createMetricsRegistry({ component: 'gateway' });
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
  app.get('/healthz', () => ({ status: 'ok' }));
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

  let server: RunningServer | undefined;
  const running = await startParts(
    [
      {
        name: 'routes',
        start: async () => {
          if (!xds) return;
          xds.start();
          await xds.firstUpdate();
        },
        close: () => xds?.close(),
      },
      {
        name: 'http server',
        start: async () => {
          server = await listenHttp(app, settings);
        },
        close: () => server?.close(),
      },
      {
        name: 'backends',
        start: () => undefined,
        close: async () => {
          ratelimit.close();
          await backend.close();
        },
      },
    ],
    log,
  );
  return { port: server?.port ?? 0, dispatcher, backend, close: () => running.close() };
}
