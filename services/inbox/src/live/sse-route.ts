import type { ServerResponse } from 'node:http';
import type { FastifyRequest } from 'fastify';
import { type HttpApp, InvalidArgumentError, withSpan } from '@portcullis/kit';
import type { Authorize } from '../accounts/access.js';
import { toCaptureDetail, toCaptureSummary } from '../contract/capture-json.js';
import type { Capture } from '../contract/capture-records.js';
import type { InboxContext } from '../context.js';
import { isStreamId } from '../contract/stream-id.js';
import type { FeedSubscription } from './feed-hub.js';
import { formatOnce, formatSseEvent, formatSseRetry } from './sse-format.js';
import type { ShareStreams } from './share-streams.js';
import { SseSubscriber, type SseSink } from './sse-subscriber.js';
import { createStreamSlots } from './stream-slots.js';

/** What a client waits before reconnecting, sent first on every stream. */
export const SSE_RETRY_MS = 2000;
const REPLAY_PAGE_SIZE = 50;

type StreamRequest = FastifyRequest<{ Params: { id: string }; Querystring: { full?: string } }>;

/**
 * `GET /api/endpoints/:id/stream`: live captures as Server-Sent Events, resumable with `Last-Event-ID`.
 * Returns a function that ends every open stream, for shutdown (fastify's close waits for open requests).
 * A stream a share token opened ends with `event: revoked` when the share is revoked. Streams are bounded
 * per process and per client address (`StreamSlots`), counted once authorized.
 */
export function registerSseRoute(
  app: HttpApp,
  ctx: InboxContext,
  guards: { authorize: Authorize; shareStreams: ShareStreams },
): () => void {
  const open = new Set<SseSubscriber>();
  const requestEvent = (c: Capture, data: unknown) => formatSseEvent({ id: c.id, event: 'request', data });
  const formatSummary = formatOnce((c: Capture) => requestEvent(c, toCaptureSummary(c)));
  // a capture object reaches only the streams of its own endpoint: one endpoint id per capture
  const formatDetail = formatOnce((c: Capture, endpointId: string) =>
    requestEvent(c, toCaptureDetail(endpointId, c, { maxBodyDepth: ctx.settings.maxBodyDepth })),
  );
  const slots = createStreamSlots({
    maxStreams: ctx.settings.sse.maxStreams,
    maxStreamsPerAddress: ctx.settings.sse.maxStreamsPerAddress,
    onRefused: (reason) => ctx.metrics.sseRefused.inc({ reason }),
  });

  app.get('/api/endpoints/:id/stream', async (request: StreamRequest, reply) => {
    const { endpoint, shareId } = await guards.authorize.grant(request, request.params.id, 'read');
    const header = request.headers['last-event-id'];
    const lastEventId = typeof header === 'string' ? header.trim() : undefined;
    if (header !== undefined && (lastEventId === undefined || !isStreamId(lastEventId))) {
      throw new InvalidArgumentError('Last-Event-ID: expected a request id such as 1700000000000-0');
    }
    const full = request.query.full === '1' || request.query.full === 'true';
    const res = reply.raw;
    const release = slots.take(request.ip);
    let unsubscribe = (): void => undefined;
    let unfollowShare = (): void => undefined;
    const subscriber = new SseSubscriber({
      sink: toSink(res),
      endpointId: endpoint.id,
      maxPendingEvents: ctx.settings.sse.maxPendingEvents,
      heartbeatMs: ctx.settings.sse.heartbeatMs,
      formatRequest: full ? (c) => formatDetail(c, endpoint.id) : formatSummary,
      readAfter: (afterId) =>
        ctx.store.listCapturesAfter(endpoint.id, { after: afterId, limit: REPLAY_PAGE_SIZE }),
      onClose: () => {
        open.delete(subscriber);
        release();
        ctx.metrics.sseSubscribers.dec();
        unsubscribe();
        unfollowShare();
      },
    });
    if (shareId !== undefined) {
      unfollowShare = guards.shareStreams.add({
        endpointId: endpoint.id,
        shareId,
        end: () => subscriber.finish({ event: 'revoked', data: { endpointId: endpoint.id } }),
      });
    }
    open.add(subscriber);
    ctx.metrics.sseSubscribers.inc();
    const client = { gone: false };
    res.on('close', () => {
      client.gone = true;
      subscriber.close();
    });
    let feed: FeedSubscription;
    try {
      // before anything is written: a store failure here is still a 503 JSON answer
      feed = await withSpan('portcullis-inbox', 'inbox subscribe', () =>
        ctx.hub.subscribe(endpoint.id, subscriber),
      );
    } catch (err: unknown) {
      subscriber.close();
      throw err;
    }
    reply.hijack();
    if (client.gone) {
      feed.unsubscribe(); // the client left while subscribing
      return;
    }
    unsubscribe = feed.unsubscribe;
    const startAfter = lastEventId ?? feed.cursor;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
      connection: 'keep-alive',
    });
    res.write(formatSseRetry(SSE_RETRY_MS));
    // a resumed stream's replay ends with the newest capture stored now: captures after it come live
    const ready = { endpointId: endpoint.id, lastEventId: startAfter, replayUntil: feed.cursor };
    res.write(formatSseEvent({ event: 'ready', data: ready }));
    void subscriber
      .start({ afterId: startAfter, replay: lastEventId !== undefined })
      .catch((err: unknown) => {
        ctx.log.error({ endpointId: endpoint.id, err }, 'live stream failed');
        subscriber.finish();
      });
  });

  return () => {
    for (const s of [...open]) s.finish();
  };
}

function toSink(res: ServerResponse): SseSink {
  return {
    write: (chunk) => res.write(chunk),
    drained: () =>
      new Promise<void>((resolve) => {
        if (res.destroyed || res.writableEnded) return resolve();
        const done = (): void => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.once('drain', done);
        res.once('close', done);
      }),
    end: () => res.end(),
  };
}
