import type { FastifyRequest } from 'fastify';
import { type HttpApp, InvalidArgumentError, NotFoundError, withSpan } from '@portcullis/kit';
import type { InboxContext } from '../context.js';
import { CaptureUnsendableError, EgressRefusedError, TargetUnreachableError } from '../errors.js';
import type { InboxRateLimiter } from '../rate-limit.js';
import { isStreamId } from '../contract/stream-id.js';
import type { Capture } from '../contract/capture-records.js';
import type { EndpointRecord } from '../store/types.js';
import { deliver } from '../delivery/deliver.js';
import type { EgressPolicy } from '../delivery/egress-policy.js';
import { buildForwardRequest, oneShotTarget } from '../delivery/forward-request.js';
import type { Access, Authorize } from '../accounts/access.js';

type RequestParams = { Params: { id: string; requestId: string } };

const REPLAY_TIMEOUT_MS = 10_000;
const MAX_TARGET_CHARS = 2048;

/**
 * What the inspector does with one stored request besides showing it: download the body exactly as
 * received, and replay it from the server (the worker's request builder and sender, under the egress
 * policy) to a URL the user gives.
 */
export function registerRequestActions(
  app: HttpApp,
  ctx: InboxContext,
  guards: { authorize: Authorize; limiter: InboxRateLimiter; egress: EgressPolicy },
): void {
  const load = async (
    request: FastifyRequest<RequestParams>,
    access: Access,
  ): Promise<[EndpointRecord, Capture]> => {
    const endpoint = await guards.authorize(request, request.params.id, access);
    const id = request.params.requestId;
    const capture = isStreamId(id) ? await ctx.store.getCapture(endpoint.id, id) : undefined;
    if (!capture) throw new NotFoundError('no such request');
    return [endpoint, capture];
  };

  // Served as an attachment that no browser renders or sniffs: captured bytes are the sender's, not ours.
  app.get<RequestParams>('/api/endpoints/:id/requests/:requestId/body', async (request, reply) => {
    const [, capture] = await load(request, 'read');
    return reply
      .headers({
        'content-type': 'application/octet-stream',
        'content-disposition': `attachment; filename="${capture.id}.bin"`,
        'x-content-type-options': 'nosniff',
        'content-security-policy': "default-src 'none'; sandbox",
        'cache-control': 'private, no-store',
        'x-body-sha256': capture.bodySha256,
      })
      .send(capture.body);
  });

  app.post<RequestParams>('/api/endpoints/:id/requests/:requestId/replay', (request, reply) =>
    withSpan('portcullis-inbox', 'inbox replay', async () => {
      const [endpoint, capture] = await load(request, 'manage');
      const to = readTarget(request.body);
      await guards.limiter.enforce({ action: 'replay', endpointId: endpoint.id }, reply);
      const built = buildForwardRequest(capture, oneShotTarget(to.href, REPLAY_TIMEOUT_MS));
      if (!built.sendable) throw new CaptureUnsendableError(`not sent: ${built.reason}`);
      const req = built.request;
      const decision = await guards.egress.check(req.url);
      if (!decision.allowed) {
        const { reason, detail } = decision;
        ctx.log.warn({ endpointId: endpoint.id, target: req.url.host, reason, detail }, 'replay refused');
        throw new EgressRefusedError(`target refused: ${reason}`);
      }
      const result = await deliver(req, {
        pinned: { address: decision.address, family: decision.family },
        timeoutMs: REPLAY_TIMEOUT_MS,
        signal: AbortSignal.timeout(REPLAY_TIMEOUT_MS + 1000),
      });
      const at = new Date(ctx.now()).toISOString();
      ctx.log.info(
        { endpointId: endpoint.id, requestId: capture.id, result: result.kind },
        'request replayed',
      );
      if (result.kind !== 'answered') {
        throw new TargetUnreachableError(result.kind === 'failed' ? result.error : 'replay aborted');
      }
      return { target: req.url.href, path: req.path, status: result.status, at };
    }),
  );
}

/** `{"to": "https://…"}`: an absolute http(s) URL. */
function readTarget(body: unknown): URL {
  const to = (typeof body === 'object' && body !== null ? body : {}) as { to?: unknown };
  if (typeof to.to !== 'string' || to.to.length > MAX_TARGET_CHARS) {
    throw new InvalidArgumentError('expected a JSON body {"to": "<absolute http or https URL>"}');
  }
  let url: URL;
  try {
    url = new URL(to.to);
  } catch {
    throw new InvalidArgumentError('to: not an absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new InvalidArgumentError('to: expected an http or https URL');
  }
  return url;
}
