import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type HttpApp, InvalidArgumentError, withSpan } from '@portcullis/kit';
import type { InboxContext } from '../context.js';
import type { InboxRateLimiter } from '../rate-limit.js';
import type { Authorize } from '../accounts/access.js';
import { toCaptureSummary } from '../contract/capture-json.js';
import { toHeaderPairs } from '../contract/raw-headers.js';
import type { CaptureFilter } from '../contract/capture-filter.js';
import { SCAN_CHUNK, searchCaptures } from '../search/capture-search.js';
import { readCaptureFilter, type QueryParams } from '../search/filtered-requests.js';
import type { Capture } from '../contract/capture-records.js';
import type { EndpointRecord } from '../store/types.js';
import { HAR_CREATOR, toHarEntry } from './har-entry.js';
import { readHarCaptures } from './har-import.js';

type ExportRequest = FastifyRequest<{ Params: { id: string }; Querystring: QueryParams }>;

/**
 * Export of an endpoint's captures (all, or those a filter matches) as HAR 1.2 or NDJSON, streamed as they are
 * read, newest first, at most `INBOX_EXPORT_MAX_REQUESTS`; and import of a HAR's requests as captures.
 */
export function registerExportRoutes(
  app: HttpApp,
  ctx: InboxContext,
  guards: { authorize: Authorize; limiter: InboxRateLimiter },
): void {
  const { store, settings } = ctx;
  const origin = new URL(settings.publicUrl).origin;

  const exported = async function* (
    endpoint: EndpointRecord,
    filter: CaptureFilter,
    out: { truncated: boolean },
  ) {
    let before: string | undefined;
    let left = settings.search.maxExport;
    while (left > 0) {
      const page = await searchCaptures(store, endpoint.id, {
        filter,
        limit: Math.min(SCAN_CHUNK, left),
        before,
        maxScan: settings.search.maxScan,
      });
      yield* page.matches;
      left -= page.matches.length;
      if (page.nextBefore === null) return;
      before = page.nextBefore;
    }
    out.truncated = true;
  };
  const start = async (request: ExportRequest, reply: FastifyReply, kind: 'har' | 'ndjson') => {
    const endpoint = await guards.authorize(request, request.params.id, 'read');
    const filter = readCaptureFilter(request.query);
    void reply.headers({
      'content-type':
        kind === 'har' ? 'application/json; charset=utf-8' : 'application/x-ndjson; charset=utf-8',
      'content-disposition': `attachment; filename="${endpoint.id}.${kind}"`,
      'cache-control': 'private, no-store',
      'x-content-type-options': 'nosniff',
    });
    ctx.log.info({ endpointId: endpoint.id, format: kind }, 'export started');
    return { endpoint, filter };
  };

  app.get<{ Params: { id: string }; Querystring: QueryParams }>(
    '/api/endpoints/:id/requests.har',
    (request, reply) =>
      withSpan('portcullis-inbox', 'inbox export har', async () => {
        const { endpoint, filter } = await start(request, reply, 'har');
        const out = { truncated: false };
        const captures = exported(endpoint, filter, out);
        async function* har() {
          yield `{"log":{"version":"1.2","creator":${JSON.stringify(HAR_CREATOR)},"entries":[`;
          let n = 0;
          for await (const c of captures)
            yield `${n++ === 0 ? '\n' : ',\n'}${JSON.stringify(toHarEntry(c, origin))}`;
          const limit = out.truncated
            ? `; stopped at INBOX_EXPORT_MAX_REQUESTS (${settings.search.maxExport})`
            : '';
          yield `\n],"comment":${JSON.stringify(`${n} requests of endpoint ${endpoint.id}, newest first${limit}`)}}}\n`;
        }
        return reply.send(Readable.from(har()));
      }),
  );

  app.get<{ Params: { id: string }; Querystring: QueryParams }>(
    '/api/endpoints/:id/requests.ndjson',
    (request, reply) =>
      withSpan('portcullis-inbox', 'inbox export ndjson', async () => {
        const { endpoint, filter } = await start(request, reply, 'ndjson');
        async function* lines() {
          for await (const c of exported(endpoint, filter, { truncated: false }))
            yield `${JSON.stringify(toExportRecord(c))}\n`;
        }
        return reply.send(Readable.from(lines()));
      }),
  );

  app.post<{ Params: { id: string } }>(
    '/api/endpoints/:id/requests/import',
    { bodyLimit: settings.search.maxImportBytes },
    (request, reply) =>
      withSpan('portcullis-inbox', 'inbox import har', async () => {
        const endpoint = await guards.authorize(request, request.params.id);
        await guards.limiter.enforce({ action: 'capture', endpointId: endpoint.id }, reply);
        const { captures, problems } = readHarCaptures(request.body, {
          endpointId: endpoint.id,
          maxBodyBytes: settings.maxBodyBytes,
          receivedAt: ctx.now(),
        });
        if (!captures) throw new InvalidArgumentError(problems.join('; '));
        const requestIds: string[] = [];
        for (const c of captures) {
          const id = await store.appendCapture(endpoint.id, c, endpoint.retention.maxRequests);
          if (id === undefined) break; // the endpoint was deleted meanwhile
          requestIds.push(id);
        }
        ctx.log.info({ endpointId: endpoint.id, imported: requestIds.length }, 'har imported');
        return reply.code(201).send({ imported: requestIds.length, requestIds });
      }),
  );
}

/** One NDJSON line: the summary plus everything needed to send the request again, the body exact. */
function toExportRecord(c: Capture) {
  return {
    ...toCaptureSummary(c),
    httpVersion: c.httpVersion,
    headers: toHeaderPairs(c.rawHeaders),
    bodySha256: c.bodySha256,
    bodyBase64: c.body.toString('base64'),
  };
}
