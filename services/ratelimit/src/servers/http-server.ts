import {
  addProbeRoutes,
  checkJsonDepth,
  createHttpApp,
  failingComponents,
  listenHttp,
  MethodNotAllowedError,
  withCallerContext,
  type DirectAnswer,
  type Health,
  type HttpTimeouts,
  type Logger,
  type RunningServer,
} from '@portcullis/kit';
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyBodyParser } from 'fastify';
import { RequestError } from '../errors.js';
import { toHttpError } from './error-mapper.js';
import type { RateLimitService } from '../service.js';
import { decodeJsonRequest, encodeJsonResponse } from './json-codec.js';
import type { RequestBounds } from './request-bounds.js';

export interface HttpServerOptions {
  host: string;
  port: number;
  timeouts: HttpTimeouts;
  /** How deep a `/json` body may nest (`{}` is 1); deeper is 400 `BODY_TOO_DEEP`. */
  maxBodyDepth: number;
  /** Descriptors per request and entries per descriptor; past them, 400 `REQUEST_INVALID` before any work. */
  bounds: RequestBounds;
  service: RateLimitService;
  health: Health;
  log: Logger;
}

const STATUS_BY_CODE = { OK: 200, OVER_LIMIT: 429, UNKNOWN: 500 } as const;

/** `POST /json` (a decision in the proto3 JSON mapping), `GET /healthcheck` and `GET /healthz`, `/readyz`. */
export async function startHttpServer(o: HttpServerOptions): Promise<RunningServer> {
  // the body of `/json` as its parser gives it: `undefined` when empty
  const parseJson = (body: string): unknown => {
    if (body === '') return undefined;
    checkJsonDepth(body, o.maxBodyDepth);
    try {
      return JSON.parse(body) as unknown;
    } catch (err: unknown) {
      throw new RequestError(`body is not valid JSON: ${(err as Error).message}`);
    }
  };
  const decide = async (body: unknown, headers: IncomingHttpHeaders): Promise<DirectAnswer> => {
    if (body === undefined) throw new RequestError('body is empty; expected a RateLimitRequest in JSON');
    const decision = decodeJsonRequest(body, o.bounds);
    const response = await withCallerContext(headers, () => o.service.shouldRateLimit(decision));
    // upstream's exact Content-Type, without the charset fastify would add
    return {
      statusCode: STATUS_BY_CODE[response.overallCode],
      contentType: 'application/json',
      body: JSON.stringify(encodeJsonResponse(response)),
    };
  };
  const app = createHttpApp(o.log.child({ component: 'http' }), toHttpError, {
    timeouts: o.timeouts,
    // the hot path, without fastify's per-request chain; the route below answers the rest of `POST /json`
    directRoute: {
      method: 'POST',
      url: '/json',
      // what clients send (`curl -d` sends the form type); fastify checks any other is a valid media type
      contentTypes: ['application/json', 'application/x-www-form-urlencoded'],
      parse: parseJson,
      handle: (body, req) => decide(body, req.headers),
    },
  });
  // Any content type is JSON here: upstream never looked at it, and `curl -d` sends a form type.
  app.removeAllContentTypeParsers();
  const parseBody: FastifyBodyParser<string> = (_request, body, done) => {
    let parsed: unknown;
    try {
      parsed = parseJson(body);
    } catch (err: unknown) {
      done(err as Error, undefined);
      return;
    }
    done(null, parsed);
  };
  // named too, not only as `*`: fastify caches the parser of a type it finds by name, and parses the
  // header of every request for the catch-all
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parseBody);
  app.addContentTypeParser('*', { parseAs: 'string' }, parseBody);

  app.post('/json', async (request, reply) => {
    const answer = await decide(request.body, request.headers);
    return reply.code(answer.statusCode).type(answer.contentType).send(answer.body);
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
  return listenHttp(app, { host: o.host, port: o.port, setting: 'PORT' });
}
