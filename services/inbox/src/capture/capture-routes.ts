import { createHash } from 'node:crypto';
import { METHODS } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ENDPOINT_ID } from '@portcullis/config';
import { BodyTooLargeError, type HttpApp, NotFoundError, readBody, withSpan } from '@portcullis/kit';
import type { InboxContext } from '../context.js';
import { toCaptureOutcome } from '../metrics.js';
import type { InboxRateLimiter } from '../rate-limit.js';
import { checkCaptureSignature } from '../signatures/capture-signature.js';
import type { CaptureInput } from '../contract/capture-records.js';
import { renderResponseBody, sendCustomResponse, waitDelay } from './custom-response.js';
import { createEndpointCache } from './endpoint-cache.js';
import { splitHookUrl } from './hook-url.js';

/** Node's HTTP parser hands CONNECT to the `connect` event, never to a route. */
const UNROUTABLE = new Set(['CONNECT']);

/**
 * The receive URLs: every method Node's HTTP parser knows (WebDAV's and QUERY too) on
 * `/api/hook/<id>` and any path below it. Registered in their own plugin so fastify never parses or
 * rejects a body there: the content type is not looked at (a malformed one would get 415, a QUERY without
 * one 400) and the body stays an unread stream for `readBody`.
 */
export async function registerCaptureRoutes(
  app: HttpApp,
  ctx: InboxContext,
  limiter: InboxRateLimiter,
): Promise<void> {
  for (const method of METHODS) {
    if (!UNROUTABLE.has(method) && !app.supportedMethods.includes(method)) {
      app.addHttpMethod(method, { hasBody: true });
    }
  }
  const methods = app.supportedMethods.filter((m) => !UNROUTABLE.has(m));
  // closing answers delayed ones at once: the drain never waits out a delay
  const delays = new AbortController();
  app.addHook('preClose', (done) => {
    delays.abort();
    done();
  });
  const captureCtx = { ...ctx, limiter, endpoints: createEndpointCache(ctx.store), delays: delays.signal };
  await app.register((hook, _opts, done) => {
    hook.removeAllContentTypeParsers();
    hook.addContentTypeParser('*', (_request, _payload, parsed) => parsed(null, undefined));
    hook.addHook('onRequest', (request, reply, next) => {
      // fastify's view only: rawHeaders, which is what is stored, keeps the header as sent
      request.raw.headers['content-type'] = 'application/octet-stream';
      setCorsHeaders(request, reply);
      next();
    });
    hook.addHook('onResponse', (_request, reply, next) => {
      // a custom response's status says nothing of the capture, which the request id header does
      const stored = reply.hasHeader('x-inbox-request-id');
      ctx.metrics.captures.inc({ outcome: stored ? 'stored' : toCaptureOutcome(reply.statusCode) });
      next();
    });
    const handler = (request: FastifyRequest, reply: FastifyReply) => capture(captureCtx, request, reply);
    const config = { csrf: 'exempt' } as const;
    hook.route({ method: methods, url: '/api/hook/:endpointId', handler, config });
    hook.route({ method: methods, url: '/api/hook/:endpointId/*', handler, config });
    done();
  });
}

async function capture(
  ctx: InboxContext & {
    limiter: InboxRateLimiter;
    endpoints: ReturnType<typeof createEndpointCache>;
    delays: AbortSignal;
  },
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<{ ok: true; requestId: string } | FastifyReply> {
  const raw = request.raw;
  const target = splitHookUrl(raw.url ?? '');
  return withSpan('portcullis-inbox', 'inbox capture', async (span) => {
    span.setAttributes({ 'http.method': request.method, 'inbox.endpoint_id': target?.endpointId ?? '' });
    const endpoint =
      target && ENDPOINT_ID.test(target.endpointId) ? await ctx.endpoints.get(target.endpointId) : undefined;
    if (!target || !endpoint) throw new NotFoundError('no such endpoint');
    // after the lookup, so unknown ids never reach the ratelimit service; before the body is read
    await ctx.limiter.enforce({ action: 'capture', endpointId: endpoint.id }, reply);
    const body = await readBody(
      raw,
      ctx.settings.maxBodyBytes,
      () => new BodyTooLargeError(ctx.settings.maxBodyBytes),
    );
    const receivedAt = ctx.now();
    const signed = { rawHeaders: raw.rawHeaders, body, nowMs: receivedAt };
    // over the exact bytes stored; whatever it finds, the capture is stored and answered as always
    const signature = checkCaptureSignature(endpoint, ctx, signed);
    const input: CaptureInput = {
      receivedAt,
      method: raw.method ?? request.method,
      url: raw.url ?? '',
      nestedPath: target.nestedPath,
      httpVersion: raw.httpVersion,
      rawHeaders: raw.rawHeaders,
      remoteAddress: raw.socket.remoteAddress ?? '',
      body,
      bodySha256: createHash('sha256').update(body).digest('hex'),
      ...(signature ? { signature } : {}),
    };
    const requestId = await ctx.store.appendCapture(endpoint.id, input, endpoint.retention.maxRequests);
    // deleted between the lookup and the write: nothing was stored
    if (requestId === undefined) throw new NotFoundError('no such endpoint');
    span.setAttribute('inbox.request_id', requestId);
    void reply.header('x-inbox-request-id', requestId);
    const custom = endpoint.response;
    if (!custom) return { ok: true, requestId };
    const answer = renderResponseBody(custom.body, input, ctx.settings.maxBodyDepth);
    if (custom.delayMs > 0) {
      const gone = new AbortController();
      reply.raw.once('close', () => gone.abort());
      await waitDelay(custom.delayMs, ctx.delays, gone.signal);
    }
    return sendCustomResponse(reply, custom, { body: answer, log: ctx.log, endpointId: endpoint.id });
  });
}

/**
 * Senders may be browsers: every answer allows any origin (never with credentials) and exposes the
 * request id; a preflight is captured like any OPTIONS request and its 200 allows what it asks for.
 */
function setCorsHeaders(request: FastifyRequest, reply: FastifyReply): void {
  void reply.headers({
    'cache-control': 'no-store',
    'access-control-allow-origin': '*',
    'access-control-expose-headers': 'x-inbox-request-id',
  });
  const method = request.headers['access-control-request-method'];
  if (request.method !== 'OPTIONS' || typeof method !== 'string') return;
  const headers = request.headers['access-control-request-headers'];
  void reply.headers({
    'access-control-allow-methods': method,
    ...(typeof headers === 'string' ? { 'access-control-allow-headers': headers } : {}),
    'access-control-max-age': '600',
  });
}
