import { type IncomingMessage, type ServerResponse } from 'node:http';
import type { Http2SecureServer, ServerHttp2Session } from 'node:http2';
import type { Socket } from 'node:net';
import Fastify, {
  LogController,
  errorCodes,
  type FastifyHttp2SecureOptions,
  type FastifyBaseLogger,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import { answerClientError } from './client-error.js';
import { toEdgeError, type ErrorMapper } from './error-mapper.js';
import { NotFoundError, PortUnavailableError } from './errors.js';
import { DEFAULT_HTTP_TIMEOUTS, type HttpTimeouts } from './http-timeouts.js';
import { checkJsonDepth } from './json-depth.js';
import type { Logger } from './log.js';
import { readBody } from './read-body.js';
import type { ServerTls } from './server-tls.js';
import { withCallerContext } from './tracing.js';
import type { TrustProxy } from './trust-proxy.js';

/** A listening server: the port it bound (useful when asked for port 0) and how to stop it. */
export interface RunningServer {
  port: number;
  close(): Promise<void>;
}

/**
 * How deep a JSON body may nest (`{}` is 1): System.Text.Json's default, ample for real documents, far
 * below what recursion over the parsed value (serialising it, sanitising it) survives.
 */
export const DEFAULT_MAX_JSON_DEPTH = 64;

/** fastify's default `bodyLimit`, which the apps keep. */
const FASTIFY_BODY_LIMIT = 1024 * 1024;
const bodyTooLarge = () => new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE();

export interface HttpAppOptions {
  trustProxy?: TrustProxy;
  /** `DEFAULT_HTTP_TIMEOUTS` unless given. */
  timeouts?: HttpTimeouts;
  /** For `application/json` bodies fastify parses; a route reading its own body calls `checkJsonDepth`. */
  maxJsonDepth?: number;
  /** One hot route answered without fastify; see `DirectRoute`. */
  directRoute?: DirectRoute;
  /**
   * Serve HTTPS with these certificates (followed as they are renewed): HTTP/2 for clients that offer it
   * (ALPN `h2`), HTTP/1.1 for the others; plain HTTP/1.1 without.
   */
  tls?: ServerTls;
}

/**
 * A route answered straight from Node's request, for a hot path whose handler costs less than fastify's
 * per-request chain (routing, hooks, a child logger, the reply). It answers only `method` on exactly `url`
 * with a `Content-Type` in `contentTypes` (or none); every other request, and every request once `close()`
 * began, goes to fastify. The body is read and parsed as fastify does (`readBody` with its 1 MiB limit and
 * errors, the connection closed after a body that could not be read or parsed), and a thrown error is answered
 * and logged as the app's error handler does.
 */
export interface DirectRoute {
  method: string;
  url: string;
  /** Media types taken as they are; fastify judges any other. */
  contentTypes: readonly string[];
  /** What `handle` takes of the body's text (`''` when there is none), as a fastify content-type parser would. */
  parse(text: string): unknown;
  handle(body: unknown, req: IncomingMessage): Promise<DirectAnswer>;
}

export interface DirectAnswer {
  statusCode: number;
  contentType: string;
  body: string;
}

/**
 * A fastify app logging through the kit logger, without a line per request (that would cost more than
 * the request on hot paths; failures are logged by the error handler), answering every error, unknown
 * route and request the HTTP parser refuses as `{error, code}` JSON. fastify's own client errors (a JSON
 * body that does not parse, say) and kit's edge errors answer the same in every service (`toEdgeError`);
 * the rest goes through the service's `toHttpError` (see `createErrorMapper`). A client that went away mid-request is logged at info, not as a server failure. `request.protocol` and
 * `request.ip` come from `X-Forwarded-*` only when the peer is one `trustProxy` names (see `readTrustProxy`).
 * A client slower than `timeouts` gets 408 (logged at debug) or, idle, a closed connection; a JSON body
 * deeper than `maxJsonDepth` gets 400 `BODY_TOO_DEEP`. Answers sent after `close()` began end their
 * connection, so the close waits for requests in flight, not for their idle connections. Route handlers
 * run in the trace context the caller sent (`withCallerContext`).
 */
export function createHttpApp(log: Logger, toHttpError: ErrorMapper, o: HttpAppOptions = {}) {
  const answerOf = (err: unknown, req: IncomingMessage, requestLog: FastifyBaseLogger) => {
    const answer = toEdgeError(err) ?? toHttpError(err);
    const { statusCode } = answer;
    if (isClientGone(req)) requestLog.info({ method: req.method, url: req.url }, 'client went away');
    else if (statusCode >= 500) requestLog.error({ err, url: req.url }, 'request failed');
    else requestLog.debug({ err, url: req.url, statusCode }, 'request rejected');
    return answer;
  };
  const answerError = (err: unknown, request: FastifyRequest, reply: FastifyReply): void => {
    const { statusCode, body, headers } = answerOf(err, request.raw, request.log);
    void reply.code(statusCode).headers(headersFor(request.raw, headers)).send(body);
  };
  const trustProxy = o.trustProxy ?? false;
  const timeouts = o.timeouts ?? DEFAULT_HTTP_TIMEOUTS;
  const maxJsonDepth = o.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH;
  let closing = false;
  const direct = o.directRoute;
  const answerDirect = async (route: DirectRoute, req: IncomingMessage, res: ServerResponse) => {
    let answer: DirectAnswer;
    let reading = true;
    try {
      const body = route.parse((await readBody(req, FASTIFY_BODY_LIMIT, bodyTooLarge)).toString('utf8'));
      reading = false;
      answer = await route.handle(body, req);
    } catch (err: unknown) {
      // as fastify answers a body it could not read or parse: what is left of it may still be on its way
      if (reading) res.setHeader('connection', 'close');
      const { statusCode, body, headers } = answerOf(err, req, log);
      answer = { statusCode, contentType: 'application/json; charset=utf-8', body: JSON.stringify(body) };
      for (const [name, value] of Object.entries(headers ?? {})) res.setHeader(name, value);
    }
    if (closing) res.setHeader('connection', 'close');
    res.writeHead(answer.statusCode, {
      'content-type': answer.contentType,
      'content-length': Buffer.byteLength(answer.body),
    });
    res.end(answer.body);
  };
  const common: CommonOptions = {
    loggerInstance: log,
    trustProxy: typeof trustProxy === 'boolean' ? trustProxy : [...trustProxy],
    // fastify's 0 would otherwise replace Node's default: a body that never ends held its socket for ever
    requestTimeout: timeouts.requestMs,
    keepAliveTimeout: timeouts.idleMs,
    connectionTimeout: timeouts.idleMs,
    logController: new LogController({ disableRequestLogging: true }),
    // a URL its router cannot decode (`%FF`, `%zz`): fastify's own body otherwise, not the service's
    frameworkErrors: answerError,
    clientErrorHandler: (err: Error, socket: Socket) => answerClientError(err, socket, log),
  };
  const http1 = {
    headersTimeout: timeouts.headersMs,
    // Node looks for late requests this often (30 s by default), which would stretch a 10 s limit to 40 s
    connectionsCheckingInterval: Math.min(1_000, timeouts.headersMs, timeouts.requestMs),
  };
  const app = o.tls ? createSecureApp(common, http1, o.tls) : createPlainApp(common, http1);
  // in front of fastify's handler on the server fastify made: with a `serverFactory` instead, fastify binds
  // one address of a host such as `localhost`, not each
  if (direct) {
    const [handler] = app.server.listeners('request') as Array<
      (req: IncomingMessage, res: ServerResponse) => void
    >;
    if (handler) {
      app.server.removeListener('request', handler);
      app.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
        if (closing || !isDirect(direct, req)) handler(req, res);
        else void answerDirect(direct, req, res);
      });
    }
  }
  app.setErrorHandler(answerError);
  // every route handler runs in the trace a caller sent (`traceparent`), so the service's spans continue it
  app.addHook('onRoute', (route) => {
    const handler = route.handler;
    route.handler = function (request, reply) {
      return withCallerContext(request.headers, () => handler.call(this, request, reply));
    };
  });
  // close() ends idle connections only: one busy at that moment would otherwise stay open, once answered,
  // until the idle timeout, and hold the close back that long
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onSend', async (request, reply, payload) => {
    // HTTP/2 has no such header: its sessions are sent GOAWAY instead (see `createSecureApp`)
    if (closing && !reply.raw.headersSent && request.raw.httpVersionMajor === 1) {
      void reply.header('connection', 'close');
    }
    return payload;
  });
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    try {
      checkJsonDepth(text, maxJsonDepth);
    } catch (err: unknown) {
      done(err as Error, undefined);
      return;
    }
    void parseJson(request, text, done);
  });
  app.setNotFoundHandler((request, reply) => {
    void reply
      .code(NotFoundError.status)
      .send({ error: `no route for ${request.method} ${request.url}`, code: NotFoundError.code });
  });
  return app;
}

export type HttpApp = ReturnType<typeof createHttpApp>;

/** The options of both kinds of server. */
interface CommonOptions {
  loggerInstance: Logger;
  trustProxy: boolean | string[];
  requestTimeout: number;
  keepAliveTimeout: number;
  connectionTimeout: number;
  logController: LogController;
  frameworkErrors: (err: unknown, request: FastifyRequest, reply: FastifyReply) => void;
  clientErrorHandler: (err: Error, socket: Socket) => void;
}

/** Node's HTTP/1 parser's limits, which fastify passes only to an HTTP/1 server it makes. */
interface Http1Limits {
  headersTimeout: number;
  connectionsCheckingInterval: number;
}

function createPlainApp(common: CommonOptions, http1: Http1Limits) {
  return Fastify({ ...common, http: http1 });
}

type PlainApp = ReturnType<typeof createPlainApp>;

/**
 * fastify on `http2.createSecureServer` with `allowHTTP1`: HTTP/2 where the client offers `h2`, else HTTP/1.1
 * with the same limits as a plain server. A session idle for `keepAliveTimeout` is closed, and `close()`
 * sends each session GOAWAY, so its streams in flight finish and no new ones start.
 */
function createSecureApp(common: CommonOptions, http1: Http1Limits, tls: ServerTls): PlainApp {
  const app = Fastify({
    ...common,
    // the same handler, typed for the other server: see the cast below
    frameworkErrors:
      common.frameworkErrors as unknown as FastifyHttp2SecureOptions<Http2SecureServer>['frameworkErrors'],
    http2: true,
    https: { ...tls.context, allowHTTP1: true },
    http2SessionTimeout: common.keepAliveTimeout,
  });
  // the HTTP/1 connections of an HTTP/2 server read their limits from these properties of it
  Object.assign(app.server, {
    ...http1,
    requestTimeout: common.requestTimeout,
    keepAliveTimeout: common.keepAliveTimeout,
  });
  tls.follow(app.server);
  const sessions = new Set<ServerHttp2Session>();
  app.server.on('session', (session: ServerHttp2Session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  app.addHook('preClose', (done) => {
    for (const session of sessions) session.close();
    done();
  });
  // Node's compatibility API gives HTTP/2 streams the request and response of HTTP/1 (method, url, headers,
  // a readable body, writeHead/end), which is what the apps use; their routes keep one type for both. Typed as
  // the union of both instances instead, fastify's route and hook methods are not callable (their generic
  // signatures do not unify): some 230 errors across every service, or a server type parameter on each route
  return app as unknown as PlainApp;
}

/**
 * An error's headers as the request's protocol takes them: HTTP/2 has no `Connection` (Node drops it with a
 * process warning); the stream ends on its own and its session serves the next.
 */
function headersFor(
  req: IncomingMessage,
  headers: Record<string, string> | undefined,
): Record<string, string> {
  if (headers === undefined) return {};
  if (req.httpVersionMajor !== 2 || !('connection' in headers)) return headers;
  const { connection: _, ...rest } = headers;
  return rest;
}

/** The connection closed before the whole request arrived: whatever failed, no one waits for an answer. */
function isClientGone(req: IncomingMessage): boolean {
  return req.destroyed && !req.complete;
}

function isDirect(route: DirectRoute, req: IncomingMessage): boolean {
  if (req.method !== route.method || req.url !== route.url) return false;
  const type = req.headers['content-type'];
  return type === undefined || route.contentTypes.includes(type);
}

/**
 * Listens on `at`; a port that is taken or not permitted throws `PortUnavailableError` naming `setting`, the
 * variable that moves it.
 */
export async function listenHttp(
  app: HttpApp,
  at: { host: string; port: number; setting: string },
): Promise<RunningServer> {
  try {
    await app.listen({ host: at.host, port: at.port });
  } catch (err: unknown) {
    throw toListenError(err, at);
  }
  const address = app.server.address();
  return { port: typeof address === 'object' && address ? address.port : at.port, close: () => app.close() };
}

/** A listen failure as `PortUnavailableError` when the port is the trouble, else unchanged. */
export function toListenError<E>(
  err: E,
  at: { host: string; port: number; setting: string },
): E | PortUnavailableError {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  if (code !== 'EADDRINUSE' && code !== 'EACCES') return err;
  const reason = code === 'EADDRINUSE' ? 'in use' : 'not permitted';
  return new PortUnavailableError(at.setting, { host: at.host, port: at.port, reason }, { cause: err });
}
