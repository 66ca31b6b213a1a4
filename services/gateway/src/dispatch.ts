import type { FastifyReply, FastifyRequest } from 'fastify';
import { checkCsrf, type AccountStore, type CsrfPolicy } from '@portcullis/accounts';
import { MethodNotAllowedError, type Logger } from '@portcullis/kit';
import type { RateLimitClient } from '@portcullis/ratelimit-client';
import type { Dispatcher as UndiciDispatcher } from 'undici';
import { createAuthRoute, type AuthRoute } from './auth/auth-routes.js';
import type { Authenticator } from './auth/authenticator.js';
import type { Caller } from './auth/caller.js';
import { REFRESH_COOKIE } from './auth/refresh-tokens.js';
import { apiKeyError, routeNotFound, UnknownHandlerError } from './errors.js';
import type { AppStore } from './apps/app-types.js';
import { checkRouteRoles } from './apps/route-roles.js';
import { resolveHandler } from './handlers/resolve-handler.js';
import type { HandlerClasses, HandlerMethod } from './handlers/types.js';
import { proxyToBackend } from './proxy/proxy-route.js';
import { enforceLimits, routeDescriptor } from './rate-limit.js';
import { OPENAPI_PATH } from './openapi/openapi-document.js';
import type { OpenApiRoute } from './openapi/openapi-route.js';
import { mergeData, parseQuery, readData, toResponseBody } from './request-data.js';
import type { RequestPath } from './request-path.js';
import type { RouteTable } from './router/route-table.js';
import type { RouteMatch } from './router/route-types.js';
import { checkAndSanitizeRequiredParameters } from './sanitize/index.js';
import type { Settings } from './settings.js';

export interface DispatcherOptions {
  settings: Readonly<Settings>;
  auth: Authenticator;
  accounts: AccountStore;
  ratelimit: RateLimitClient;
  handlers: HandlerClasses;
  log: Logger;
  /** Session mode only: lib/accounts' CSRF rule for every cookie-authenticated write and the sign-in. */
  csrf: CsrfPolicy | undefined;
  /** The connection pool of upstream routes. */
  upstreams: UndiciDispatcher;
  /** Applications and the roles of users, for routes with `roles`. */
  apps: AppStore;
  /** `<base>/openapi.json`, unless `GATEWAY_OPENAPI=off`. */
  openapi?: OpenApiRoute | undefined;
}

/**
 * Serves everything under the base path: `/auth` (auth/auth-routes.ts), then routes of the table, each
 * checked for its caller and rate limited before its handler runs or its upstream Service is asked
 * (proxy/proxy-route.ts). The route table is swapped whole on each update; a request keeps the table it
 * started with.
 */
export class Dispatcher {
  private table: RouteTable;
  /** Handler lookups by `Class.method`, resolved once each. */
  private readonly handlers = new Map<string, HandlerMethod | undefined>();
  private readonly authRoute: AuthRoute;

  constructor(
    private readonly o: DispatcherOptions,
    initial: RouteTable,
  ) {
    this.table = initial;
    this.authRoute = createAuthRoute(o);
  }

  setTable(table: RouteTable): void {
    this.table = table;
  }

  currentTable(): RouteTable {
    return this.table;
  }

  /** `path` is the request's path below the base path: the caller parsed the URL once. */
  async handle(request: FastifyRequest, reply: FastifyReply, path: RequestPath): Promise<unknown> {
    const { relPath, search } = path;
    const table = this.table;
    const method = request.method;
    // on the decoded path the route is chosen by, so `/api/%61uth` is the sign-in it reaches
    if (this.o.csrf) checkCsrf(request, this.o.csrf, { setsCookie: relPath === 'auth' });
    if (relPath === '') return { message: 'no endpoint defined' };
    if (relPath === 'auth') return this.authRoute(request, reply);
    if (relPath === OPENAPI_PATH && this.o.openapi) return this.o.openapi(request, reply, table);
    if (method === 'OPTIONS') return this.options(reply, table, relPath);
    const found = table.lookup(method, relPath);
    if (found.kind === 'not-found') throw routeNotFound();
    if (found.kind === 'method-not-allowed') {
      throw new MethodNotAllowedError('Method not allowed', [...found.allow, 'OPTIONS']);
    }
    const caller = await this.o.auth.identify(request);
    const { route } = found.match;
    if (route.auth && this.o.settings.auth !== 'none' && !caller) throw this.o.auth.missing();
    let role: string | undefined;
    if (route.roles.length > 0) {
      const { auth, apiKeyHeader } = this.o.settings;
      role = await checkRouteRoles(route.roles, caller, {
        store: this.o.apps,
        // in mode none only an application can hold a role
        missing: () =>
          auth === 'none' ? apiKeyError('API key required', apiKeyHeader) : this.o.auth.missing(),
      });
    }
    const query = parseQuery(search);
    await this.limit(request, { match: found.match, caller, role, query, reply });
    if (route.target.kind === 'backend') {
      const { backendHostTemplate: hostTemplate, maxBodyBytes, apiKeyHeader, session } = this.o.settings;
      return proxyToBackend(request, reply, {
        route,
        agent: this.o.upstreams,
        backend: route.target,
        caller,
        path,
        hostTemplate,
        maxBodyBytes,
        credentials: { apiKeyHeader, cookies: [session.cookieName, REFRESH_COOKIE] },
      });
    }
    return this.runHandler(request, { match: found.match, caller, query });
  }

  private async runHandler(
    request: FastifyRequest,
    at: { match: RouteMatch; caller: Caller | undefined; query: Record<string, unknown> },
  ): Promise<unknown> {
    const { route, params } = at.match;
    if (route.target.kind !== 'handler') throw new Error('not a handler route');
    let handler = this.handlers.get(route.target.handler);
    if (!this.handlers.has(route.target.handler)) {
      handler = resolveHandler(this.o.handlers, route.target.handler);
      this.handlers.set(route.target.handler, handler);
    }
    if (!handler) throw new UnknownHandlerError(route.target.handler);
    const body = await readData(request.raw, this.o.settings);
    let data = mergeData({ query: at.query, body, params, userId: at.caller?.account.id });
    if (route.requiredParams.length > 0)
      data = checkAndSanitizeRequiredParameters(data, route.requiredParams);
    const ctx = { account: at.caller?.account, accounts: this.o.accounts, log: this.o.log };
    return toResponseBody(await handler(data, ctx));
  }

  private async limit(
    request: FastifyRequest,
    at: {
      match: RouteMatch;
      caller: Caller | undefined;
      role: string | undefined;
      query: Record<string, unknown>;
      reply: FastifyReply;
    },
  ): Promise<void> {
    const { route, params } = at.match;
    if (!route.rateLimit) return;
    const entries = routeDescriptor(route, route.rateLimit, {
      ip: request.ip,
      headers: request.headers,
      params,
      query: at.query,
      userId: at.caller?.account.id,
      claims: at.caller?.claims ? { ...at.caller.claims } : undefined,
      appId: at.caller?.app?.id,
      role: at.role,
    });
    await enforceLimits(this.o.ratelimit, at.reply, {
      domain: this.o.settings.ratelimit.domain,
      descriptors: [entries],
    });
  }

  private options(reply: FastifyReply, table: RouteTable, relPath: string): FastifyReply {
    const methods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'].filter(
      (m) => table.lookup(m, relPath).kind === 'match',
    );
    if (methods.length === 0) throw routeNotFound();
    return reply
      .code(204)
      .header('allow', [...methods, 'OPTIONS'].join(', '))
      .send();
  }
}
