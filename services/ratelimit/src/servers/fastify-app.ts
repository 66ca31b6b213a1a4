import Fastify, { LogController } from 'fastify';
import type { Logger } from '@portcullis/kit';
import { toHttpError } from './error-status.js';
import type { RunningServer } from './grpc-server.js';

/** A fastify app that logs through the kit logger and answers every error as `{error, code}` JSON. */
export function createFastifyApp(log: Logger) {
  const app = Fastify({
    loggerInstance: log,
    // Per-request log lines would cost more than a decision; errors are logged by the handler below.
    logController: new LogController({ disableRequestLogging: true }),
  });
  app.setErrorHandler((err, request, reply) => {
    const { statusCode, body } = toHttpError(err);
    if (statusCode >= 500) request.log.error({ err, url: request.url }, 'request failed');
    else request.log.debug({ err, url: request.url, statusCode }, 'request rejected');
    void reply.code(statusCode).send(body);
  });
  app.setNotFoundHandler((request, reply) => {
    void reply.code(404).send({ error: `no route for ${request.method} ${request.url}`, code: 'NOT_FOUND' });
  });
  return app;
}

export type HttpApp = ReturnType<typeof createFastifyApp>;

export async function listen(app: HttpApp, at: { host: string; port: number }): Promise<RunningServer> {
  await app.listen({ host: at.host, port: at.port });
  const address = app.server.address();
  return {
    port: typeof address === 'object' && address ? address.port : at.port,
    close: () => app.close(),
  };
}
