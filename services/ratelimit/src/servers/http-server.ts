import {
  addProbeRoutes,
  checkJsonDepth,
  createHttpApp,
  failingComponents,
  listenHttp,
  MethodNotAllowedError,
  withCallerContext,
  type Health,
  type HttpTimeouts,
  type Logger,
  type RunningServer,
} from '@portcullis/kit';
import type { FastifyBodyParser } from 'fastify';
import { RequestError } from '../errors.js';
import { toHttpError } from './error-mapper.js';
import type { RateLimitService } from '../service.js';
import { decodeJsonRequest, encodeJsonResponse } from './json-codec.js';

export interface HttpServerOptions {
  host: string;
  port: number;
  timeouts: HttpTimeouts;
  /** How deep a `/json` body may nest (`{}` is 1); deeper is 400 `BODY_TOO_DEEP`. */
  maxBodyDepth: number;
  service: RateLimitService;
  health: Health;
  log: Logger;
}

const STATUS_BY_CODE = { OK: 200, OVER_LIMIT: 429, UNKNOWN: 500 } as const;

/** `POST /json` (a decision in the proto3 JSON mapping), `GET /healthcheck` and `GET /healthz`, `/readyz`. */
export async function startHttpServer(o: HttpServerOptions): Promise<RunningServer> {
  const app = createHttpApp(o.log.child({ component: 'http' }), toHttpError, { timeouts: o.timeouts });
  // Any content type is JSON here: upstream never looked at it, and `curl -d` sends a form type.
  app.removeAllContentTypeParsers();
  const parseBody: FastifyBodyParser<string> = (_request, body, done) => {
    if (body === '') {
      done(null, undefined);
      return;
    }
    try {
      checkJsonDepth(body, o.maxBodyDepth);
    } catch (err: unknown) {
      done(err as Error, undefined);
      return;
    }
    try {
      done(null, JSON.parse(body) as unknown);
    } catch (err: unknown) {
      done(new RequestError(`body is not valid JSON: ${(err as Error).message}`), undefined);
    }
  };
  // named too, not only as `*`: fastify caches the parser of a type it finds by name, and parses the
  // header of every request for the catch-all
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parseBody);
  app.addContentTypeParser('*', { parseAs: 'string' }, parseBody);

  app.post('/json', async (request, reply) => {
    if (request.body === undefined)
      throw new RequestError('body is empty; expected a RateLimitRequest in JSON');
    const decision = decodeJsonRequest(request.body);
    const response = await withCallerContext(request.headers, () => o.service.shouldRateLimit(decision));
    // upstream's exact Content-Type, without the charset fastify would add
    return reply
      .code(STATUS_BY_CODE[response.overallCode])
      .type('application/json')
      .send(encodeJsonResponse(response));
  });
  app.route({
    method: ['GET', 'PUT', 'DELETE', 'PATCH'],
    url: '/json',
    handler: () => {
      throw new MethodNotAllowedError('use POST for /json', ['POST']);
    },
  });
  // the kit's probes beside upstream's /healthcheck, over the same components
  addProbeRoutes(app, { failing: () => failingComponents(o.health) });
  app.get('/healthcheck', (_request, reply) => {
    const healthy = o.health.isHealthy();
    void reply
      .code(healthy ? 200 : 500)
      .type('text/plain; charset=utf-8')
      .send(healthy ? 'OK' : 'unhealthy');
  });
  return listenHttp(app, o);
}
