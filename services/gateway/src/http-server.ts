import {
  addProbeRoutes,
  countRawHeader,
  createHttpApp,
  InvalidArgumentError,
  listenHttp,
  withSpan,
  type Logger,
  type Part,
  type Readiness,
  type RunningServer,
  type ServerTls,
} from '@portcullis/kit';
import type { Registry } from 'prom-client';
import type { AdminToken } from './admin-token.js';
import { addAdminRoutes } from './apps/admin-routes.js';
import type { AppStore } from './apps/app-types.js';
import type { RefreshTokens } from './auth/refresh-tokens.js';
import { applyCors } from './cors.js';
import type { Dispatcher } from './dispatch.js';
import { toHttpError } from './error-mapper.js';
import { addRequestMetrics } from './request-metrics.js';
import { parseRequestPath } from './request-path.js';
import type { Settings } from './settings.js';

export interface HttpServerDeps {
  dispatcher: Dispatcher;
  apps: AppStore;
  adminToken: AdminToken;
  refresh: RefreshTokens | undefined;
  readiness: Readiness;
  registry: Registry;
  /** What `/metrics` answers: `registry`'s text, or with workers the sum over all of them. */
  metricsText: () => Promise<string>;
  /** The listener's certificate (`GATEWAY_TLS_*`); plain HTTP when undefined. Closed with the server. */
  tls: ServerTls | undefined;
  log: Logger;
  now: () => number;
}

/**
 * The public port: everything under the base path goes to the dispatcher; beside it the admin API,
 * `/healthz`, `/readyz` and `/metrics`. Listens on start; on close drains, then stops following the certificate.
 */
export function createHttpServerPart(
  settings: Readonly<Settings>,
  deps: HttpServerDeps,
): Part & { readonly port: number | undefined } {
  const { dispatcher, tls, log } = deps;
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
    // node keeps the first of two; a proxy in front may have routed by the other
    if (countRawHeader(request.raw.rawHeaders, 'host') > 1) {
      done(new InvalidArgumentError('send one Host header'));
      return;
    }
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
      store: deps.apps,
      adminToken: deps.adminToken,
      ...(deps.refresh ? { refresh: deps.refresh } : {}),
      limits: settings,
      now: deps.now,
    });
  addProbeRoutes(app, deps.readiness);
  app.get('/metrics', async (_request, reply) =>
    reply.type(deps.registry.contentType).send(await deps.metricsText()),
  );
  addRequestMetrics(app, { registry: deps.registry, base });

  let server: RunningServer | undefined;
  return {
    name: 'http server',
    get port() {
      return server?.port;
    },
    start: async () => {
      server = await listenHttp(app, { host: settings.host, port: settings.port, setting: 'GATEWAY_PORT' });
    },
    close: async () => {
      await server?.close();
      tls?.close();
    },
  };
}
