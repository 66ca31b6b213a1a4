import type { FastifyReply, FastifyRequest } from 'fastify';
import { checkCsrf, type AccountStore, type CsrfPolicy } from '@portcullis/accounts';
import { MethodNotAllowedError, readBody, type Logger } from '@portcullis/kit';
import {
  RateLimitedError,
  RateLimitUnavailableError,
  retryAfter,
  type DescriptorEntry,
  type RateLimitClient,
} from '@portcullis/ratelimit-client';
import type { Authenticator, Caller } from './auth/authenticator.js';
import { routeNotFound, UnknownHandlerError } from './errors.js';
import { resolveHandler, type HandlerClasses } from './handlers/registry.js';
import type { HandlerMethod } from './handlers/types.js';
import { forwardRequest } from './proxy/upstream.js';
import { routeDescriptor, signInDescriptors } from './rate-limit.js';
import { mergeData, parseBody, parseQuery, tooLarge, toResponseBody } from './request-data.js';
import type { RequestPath } from './request-path.js';
import type { RouteTable } from './router/route-table.js';
import type { GatewayRoute, RouteMatch } from './router/route-types.js';
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
}

const AUTH_METHODS = ['DELETE', 'OPTIONS', 'POST'];

/**
 * Serves everything under the base path. The route table is swapped whole on each update; a request keeps
 * the table it started with.
 */
export class Dispatcher {
  private table: RouteTable;
  /** Handler lookups by `Class.method`, resolved once each. */
  private readonly handlers = new Map<string, HandlerMethod | undefined>();

  constructor(
    private readonly o: DispatcherOptions,
    initial: RouteTable,
  ) {
    this.table = initial;
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
    if (relPath === 'auth') return this.handleAuth(request, reply, search);
    if (method === 'OPTIONS') return this.options(reply, table, relPath);
    const found = table.lookup(method, relPath);
    if (found.kind === 'not-found') throw routeNotFound();
    if (found.kind === 'method-not-allowed') {
      throw new MethodNotAllowedError('Method not allowed', [...found.allow, 'OPTIONS']);
    }
    const caller = await this.o.auth.identify(request);
    const { route } = found.match;
    if (route.auth && this.o.settings.auth !== 'none' && !caller) throw this.o.auth.missing();
    const query = parseQuery(search);
    await this.limit(request, { match: found.match, caller, query, reply });
    if (route.target.kind === 'backend') return this.proxy(request, reply, { route, caller, path });
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
    const body = await this.readData(request);
    let data = mergeData({ query: at.query, body, params, userId: at.caller?.account.id });
    if (route.requiredParams.length > 0)
      data = checkAndSanitizeRequiredParameters(data, route.requiredParams);
    const ctx = { account: at.caller?.account, accounts: this.o.accounts, log: this.o.log };
    return toResponseBody(await handler(data, ctx));
  }

  private async proxy(
    request: FastifyRequest,
    reply: FastifyReply,
    at: { route: GatewayRoute; caller: Caller | undefined; path: RequestPath },
  ): Promise<unknown> {
    const target = at.route.target;
    if (target.kind !== 'backend') throw new Error('not a backend route');
    const host = this.o.settings.backendHostTemplate
      .replaceAll('{service}', target.service)
      .replaceAll('{namespace}', target.namespace);
    // as the client escaped it: decoded, `%3F` would become a query and `%20` an invalid request line
    const prefixSegments = at.route.prefix === '' ? 0 : at.route.prefix.split('/').length;
    const rest = at.path.rawSegments.slice(prefixSegments).join('/');
    const path = `${target.path.replace(/\/+$/, '')}/${rest}${at.path.search}`;
    const upstream = await forwardRequest({
      req: request.raw,
      host,
      port: target.port,
      path: path.startsWith('/') ? path : `/${path}`,
      timeoutMs: target.timeoutSeconds * 1000,
      client: { ip: request.ip, protocol: request.protocol, host: request.headers.host ?? '' },
      identity: at.caller ? { id: at.caller.account.id, username: at.caller.account.username } : undefined,
    });
    return reply.code(upstream.statusCode).headers(upstream.headers).send(upstream.body);
  }

  private async limit(
    request: FastifyRequest,
    at: {
      match: RouteMatch;
      caller: Caller | undefined;
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
    });
    await this.enforce(this.o.settings.ratelimit.domain, [entries], at.reply);
  }

  /**
   * Asks the rate-limit service and sets the `RateLimit-*` headers it answered; 429 with `Retry-After` over
   * a limit, 503 when it cannot be asked and the failure mode is `deny`.
   */
  private async enforce(
    domain: string,
    descriptors: DescriptorEntry[][],
    reply: FastifyReply,
  ): Promise<void> {
    const decision = await this.o.ratelimit.decide({
      domain,
      descriptors: descriptors.map((entries) => ({ entries })),
    });
    for (const h of decision.headers) void reply.header(h.key, h.value);
    if (decision.allowed) return;
    // failure mode deny: the service could not be asked, which is not the caller's doing
    if (decision.failedOpen) throw new RateLimitUnavailableError();
    const after = retryAfter(decision.headers);
    throw new RateLimitedError(after === undefined ? {} : { 'retry-after': after }, 'Too many requests');
  }

  private async handleAuth(request: FastifyRequest, reply: FastifyReply, search: string): Promise<unknown> {
    const secure = request.protocol === 'https';
    switch (request.method) {
      case 'OPTIONS':
        return reply.code(204).header('allow', AUTH_METHODS.join(', ')).send();
      case 'POST': {
        const body = await this.readData(request);
        const params = { ...parseQuery(search), ...body };
        // before the password is checked, so guessing gets 429 whether or not a guess is right
        const username = typeof params.username === 'string' ? params.username : '';
        await this.enforce(
          this.o.settings.ratelimit.authDomain,
          signInDescriptors(request.ip, username),
          reply,
        );
        return this.o.auth.login(params, reply, { secure, cookie: request.headers.cookie });
      }
      case 'DELETE':
        return this.o.auth.logout(await this.o.auth.identify(request), reply, secure);
      default:
        throw new MethodNotAllowedError('Method not allowed', AUTH_METHODS);
    }
  }

  /** The JSON, urlencoded or multipart body's data, within the body size and depth limits. */
  private async readData(request: FastifyRequest): Promise<Record<string, unknown>> {
    const { maxBodyBytes, maxBodyDepth } = this.o.settings;
    const body = await readBody(request.raw, maxBodyBytes, () => tooLarge(maxBodyBytes));
    return parseBody(request.headers['content-type'], body, maxBodyDepth);
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
