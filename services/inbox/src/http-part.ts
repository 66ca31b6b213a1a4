import type { AccountsBackend } from '@portcullis/accounts';
import {
  addProbeRoutes,
  createHttpApp,
  listenHttp,
  type Part,
  type Readiness,
  type RunningServer,
  createMetricsReader,
} from '@portcullis/kit';
import type { Registry } from 'prom-client';
import { registerAccountRoutes } from './accounts/account-routes.js';
import { CSRF_HEADER, checkInboxCsrf } from './accounts/csrf.js';
import type { WebSessions } from './accounts/web-sessions.js';
import { createAuthorize } from './accounts/access.js';
import { registerAdminRoutes } from './api/admin-routes.js';
import { registerDeadLetterRoutes } from './api/dead-letter-routes.js';
import { registerEndpointRoutes } from './api/endpoint-routes.js';
import { registerEndpointSettingsRoutes } from './api/endpoint-settings-routes.js';
import { buildOpenApiDocument } from './api/openapi-document.js';
import { recordRoutes, registerOpenApiRoute } from './api/openapi-route.js';
import { registerRequestActions } from './api/request-actions.js';
import { registerShareRoutes } from './api/share-routes.js';
import { registerSignatureRoutes } from './api/signature-routes.js';
import { registerCaptureRoutes } from './capture/capture-routes.js';
import type { InboxContext } from './context.js';
import { toHttpError } from './error-mapper.js';
import { registerExportRoutes } from './export/export-routes.js';
import type { ShareStreams } from './live/share-streams.js';
import { registerSseRoute } from './live/sse-route.js';
import type { InboxRateLimiter } from './rate-limit.js';
import { registerWebRoutes } from './web/web-routes.js';
import { createEgressPolicy } from './delivery/egress-policy.js';
import type { ForwardingState } from './forwarding-store/forwarding-state.js';

export interface HttpPartOptions {
  ctx: InboxContext;
  accounts: { backend: AccountsBackend; sessions: WebSessions };
  limiter: InboxRateLimiter;
  shareStreams: ShareStreams;
  /** The dead letters and circuit reports the API shows. */
  forwarding: ForwardingState;
  /** Served on `/metrics` (in a worker, summed with the other workers' by the primary). */
  registry: Registry;
  /** Served on `/healthz` and `/readyz`. */
  readiness: Readiness;
  /** Who forwards the captures, for the start-up log line. */
  forwardedBy: 'this process' | 'inbox-worker';
}

export interface HttpPart extends Part {
  /** Every route served, as `METHOD /url` in fastify's spelling. */
  readonly routes: readonly string[];
  /** The bound port, once started. */
  port(): number | undefined;
}

/** The inbox's HTTP server: every route (capture, API, live, inspector, probes, metrics), then the port. */
export async function createHttpPart(o: HttpPartOptions): Promise<HttpPart> {
  const { ctx, limiter, shareStreams } = o;
  const { settings, store, log } = ctx;
  const { backend, sessions } = o.accounts;
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
  const egress = createEgressPolicy({ allowPrivate: settings.egressAllowPrivate });
  await registerCaptureRoutes(app, ctx, limiter);
  registerEndpointRoutes(app, ctx, { authorize, limiter, sessions });
  registerEndpointSettingsRoutes(app, ctx, authorize);
  registerRequestActions(app, ctx, { authorize, limiter, egress });
  registerShareRoutes(app, ctx, { authorize, shareStreams });
  registerAdminRoutes(app, ctx);
  registerSignatureRoutes(app, ctx, authorize);
  registerExportRoutes(app, ctx, { authorize, limiter });
  registerDeadLetterRoutes(app, ctx, { authorize, forwarding: o.forwarding });
  registerAccountRoutes(app, ctx, { backend, sessions, limiter });
  registerWebRoutes(app, { webDir: settings.webDir, log });
  registerOpenApiRoute(app, buildOpenApiDocument({ cookieName: settings.accounts.cookieName }));
  const closeStreams = registerSseRoute(app, ctx, { authorize, shareStreams });
  // fastify's close waits for open requests, and a live stream never ends by itself
  app.addHook('preClose', (done) => {
    closeStreams();
    done();
  });
  addProbeRoutes(app, o.readiness);
  const readMetrics = createMetricsReader(o.registry);
  app.get('/metrics', async (_request, reply) =>
    reply.type(o.registry.contentType).send(await readMetrics()),
  );

  let server: RunningServer | undefined;
  return {
    name: 'http server',
    routes,
    port: () => server?.port,
    start: async () => {
      server = await listenHttp(app, { host: settings.host, port: settings.port, setting: 'INBOX_PORT' });
      log.info({ port: server.port, store: store.kind, forwardedBy: o.forwardedBy }, 'inbox listening');
    },
    close: () => server?.close(),
  };
}
