import Fastify, { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import type { Logger } from './log.js';
import type { TrustProxy } from './trust-proxy.js';

/** A listening server: the port it bound (useful when asked for port 0) and how to stop it. */
export interface RunningServer {
  port: number;
  close(): Promise<void>;
}

/** The one mapping from an error to an HTTP status and JSON body, per service. */
export type ErrorMapper = (err: unknown) => {
  statusCode: number;
  body: { error: string; code: string };
  headers?: Record<string, string>;
};

/**
 * A fastify app logging through the kit logger, without a line per request (that would cost more than
 * the request on hot paths; failures are logged by the error handler), answering every error and unknown
 * route as `{error, code}` JSON. `request.protocol` and `request.ip` come from `X-Forwarded-*` only when
 * the peer is one `trustProxy` names (see `readTrustProxy`).
 */
export function createHttpApp(log: Logger, toHttpError: ErrorMapper, o: { trustProxy?: TrustProxy } = {}) {
  const answerError = (err: unknown, request: FastifyRequest, reply: FastifyReply): void => {
    const { statusCode, body, headers } = toHttpError(err);
    if (statusCode >= 500) request.log.error({ err, url: request.url }, 'request failed');
    else request.log.debug({ err, url: request.url, statusCode }, 'request rejected');
    void reply
      .code(statusCode)
      .headers(headers ?? {})
      .send(body);
  };
  const trustProxy = o.trustProxy ?? false;
  const app = Fastify({
    loggerInstance: log,
    trustProxy: typeof trustProxy === 'boolean' ? trustProxy : [...trustProxy],
    logController: new LogController({ disableRequestLogging: true }),
    // a URL its router cannot decode (`%FF`, `%zz`): fastify's own body otherwise, not the service's
    frameworkErrors: answerError,
  });
  app.setErrorHandler(answerError);
  app.setNotFoundHandler((request, reply) => {
    void reply.code(404).send({ error: `no route for ${request.method} ${request.url}`, code: 'NOT_FOUND' });
  });
  return app;
}

export type HttpApp = ReturnType<typeof createHttpApp>;

export async function listenHttp(app: HttpApp, at: { host: string; port: number }): Promise<RunningServer> {
  await app.listen({ host: at.host, port: at.port });
  const address = app.server.address();
  return { port: typeof address === 'object' && address ? address.port : at.port, close: () => app.close() };
}
