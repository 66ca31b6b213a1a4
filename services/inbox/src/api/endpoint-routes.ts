import type { FastifyReply, FastifyRequest } from 'fastify';
import { hashToken, type HttpApp, InvalidArgumentError, NotFoundError, withSpan } from '@portcullis/kit';
import type { WebSessions } from '../accounts/web-sessions.js';
import { receiveUrl, type InboxContext } from '../context.js';
import { createEndpointId, createEndpointToken } from './endpoint-credentials.js';
import { authError, EndpointManagedError } from '../errors.js';
import { isStreamId } from '../contract/stream-id.js';
import type { InboxRateLimiter } from '../rate-limit.js';
import type { EndpointRecord } from '../store/types.js';
import { bearerToken, type Authorize } from '../accounts/access.js';
import { toCaptureDetail, toCaptureSummary } from '../contract/capture-json.js';
import { toSignatureView } from '../contract/signature-json.js';
import { toRetentionJson } from './endpoint-settings-routes.js';
import { listFilteredRequests, readCaptureFilter, toQueryPairs } from '../search/filtered-requests.js';
import { hasFilterParams } from '../contract/capture-filter.js';

export const MAX_NAME_CHARS = 200;
export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;
/** Management bodies are a name at most. */
const BODY_LIMIT_BYTES = 16 * 1024;

type Params = { Params: { id: string } };

/** The JSON management API under `/api/endpoints`; see the README for the wire protocol. */
export function registerEndpointRoutes(
  app: HttpApp,
  ctx: InboxContext,
  guards: { authorize: Authorize; limiter: InboxRateLimiter; sessions: WebSessions },
): void {
  const { store, settings } = ctx;
  const { authorize, limiter, sessions } = guards;
  const traced = <T>(name: string, fn: () => Promise<T>): Promise<T> =>
    withSpan('portcullis-inbox', name, () => fn());
  const view = async (e: EndpointRecord) => ({
    id: e.id,
    name: e.name,
    kind: e.kind,
    receiveUrl: receiveUrl(settings, e.id),
    createdAt: e.createdAt,
    retention: toRetentionJson(e.retention),
    requestCount: await store.countCaptures(e.id),
    signature: e.signature ? toSignatureView(e.signature) : null,
    response: e.response ?? null,
    ...(e.kind === 'managed' ? { resource: e.resource, forward: e.forward } : {}),
  });

  // Signed in (and no bearer token): the account's endpoint. Otherwise anonymous, with a token.
  app.post('/api/endpoints', { bodyLimit: BODY_LIMIT_BYTES }, (request, reply) =>
    traced('inbox create endpoint', async () => {
      await limiter.enforce({ action: 'create_endpoint', remoteAddress: request.ip }, reply);
      const name = readName(request.body, { required: false });
      const owner =
        request.headers.authorization === undefined ? await sessions.signedIn(request) : undefined;
      const id = createEndpointId();
      const token = owner ? undefined : createEndpointToken();
      const createdAt = new Date(ctx.now()).toISOString();
      await store.createEndpoint({
        id,
        name,
        tokenSha256: token === undefined ? '' : hashToken(token),
        ownerId: owner?.account.id ?? '',
        createdAt,
        retention: { ...settings.retention },
      });
      ctx.log.info({ endpointId: id, accountId: owner?.account.id }, 'endpoint created');
      void reply.code(201).headers({ location: `/api/endpoints/${id}`, 'cache-control': 'no-store' });
      const kind = owner ? 'account' : 'anonymous';
      const created = { id, name, kind, receiveUrl: receiveUrl(settings, id), createdAt };
      // the only time a token is ever shown: the store keeps its hash
      return token === undefined ? created : { ...created, token };
    }),
  );

  app.get('/api/endpoints', (request) =>
    traced('inbox list endpoints', async () => {
      const signedIn = await sessions.signedIn(request);
      if (!signedIn) throw authError('sign_in');
      const owned = await store.listAccountEndpoints(signedIn.account.id);
      return { endpoints: await Promise.all(owned.map(view)) };
    }),
  );

  // The token proves the endpoint, the session names the account; the token stops working.
  app.post<Params>('/api/endpoints/:id/claim', (request) =>
    traced('inbox claim endpoint', async () => {
      const endpoint = await authorize(request, request.params.id);
      const token = bearerToken(request.headers.authorization ?? '');
      const signedIn = await sessions.signedIn(request);
      if (!signedIn) throw authError('sign_in');
      if (endpoint.kind !== 'anonymous' || token === undefined) {
        throw new InvalidArgumentError('only an anonymous endpoint, opened with its token, can be claimed');
      }
      const claimed = await store.claimEndpoint(endpoint.id, {
        tokenSha256: hashToken(token),
        accountId: signedIn.account.id,
      });
      if (!claimed) throw new NotFoundError('no such endpoint');
      ctx.log.info({ endpointId: endpoint.id, accountId: signedIn.account.id }, 'endpoint claimed');
      return view({ ...endpoint, kind: 'account', tokenSha256: '', ownerId: signedIn.account.id });
    }),
  );

  app.get<Params>('/api/endpoints/:id', (request) =>
    traced('inbox get endpoint', async () => view(await authorize(request, request.params.id, 'read'))),
  );

  app.patch<Params>('/api/endpoints/:id', { bodyLimit: BODY_LIMIT_BYTES }, (request) =>
    traced('inbox rename endpoint', async () => {
      const endpoint = await authorize(request, request.params.id);
      const name = readName(request.body, { required: true });
      if (endpoint.kind === 'managed') throw new EndpointManagedError(endpoint.resource);
      if (!(await store.renameEndpoint(endpoint.id, name))) throw new NotFoundError('no such endpoint');
      return view({ ...endpoint, name });
    }),
  );

  app.delete<Params>('/api/endpoints/:id', (request, reply: FastifyReply) =>
    traced('inbox delete endpoint', async () => {
      const endpoint = await authorize(request, request.params.id);
      if (endpoint.kind === 'managed') throw new EndpointManagedError(endpoint.resource);
      await store.deleteEndpoint(endpoint.id);
      ctx.log.info({ endpointId: endpoint.id }, 'endpoint deleted');
      return reply.code(204).send();
    }),
  );

  app.get<Params & { Querystring: Record<string, string | undefined> }>(
    '/api/endpoints/:id/requests',
    (request) =>
      traced('inbox list requests', async () => {
        const endpoint = await authorize(request, request.params.id, 'read');
        const { limit, before } = readPage(request.query);
        if (hasFilterParams(toQueryPairs(request.query))) {
          const filter = readCaptureFilter(request.query);
          const maxScan = settings.search.maxScan;
          return listFilteredRequests(store, endpoint, { filter, limit, before, maxScan });
        }
        const page = await store.listCaptures(endpoint.id, {
          limit: limit + 1,
          ...(before ? { before } : {}),
        });
        const shown = page.slice(0, limit);
        const last = shown.at(-1);
        const withForwarding = endpoint.forward.length > 0;
        const requests = await Promise.all(
          shown.map(async (c) =>
            withForwarding
              ? {
                  ...toCaptureSummary(c),
                  lastForwarding: (await store.listForwardAttempts(endpoint.id, c.id)).at(-1) ?? null,
                }
              : toCaptureSummary(c),
          ),
        );
        return {
          requests,
          nextBefore: page.length > limit && last ? last.id : null,
        };
      }),
  );

  app.get<{ Params: { id: string; requestId: string } }>(
    '/api/endpoints/:id/requests/:requestId',
    (request: FastifyRequest<{ Params: { id: string; requestId: string } }>) =>
      traced('inbox get request', async () => {
        const endpoint = await authorize(request, request.params.id, 'read');
        const id = request.params.requestId;
        const capture = isStreamId(id) ? await store.getCapture(endpoint.id, id) : undefined;
        if (!capture) throw new NotFoundError('no such request');
        return toCaptureDetail(endpoint.id, capture, {
          maxBodyDepth: settings.maxBodyDepth,
          forwarding: await store.listForwardAttempts(endpoint.id, id),
        });
      }),
  );
}

/**
 * `{name}`: a string of at most 200 characters without control characters; no body means empty. A JSON
 * `null` is a body that is not an object, like `[]` or `1`.
 */
function readName(body: unknown, o: { required: boolean }): string {
  if (body === undefined) {
    if (o.required) throw new InvalidArgumentError('expected a JSON body {"name": "…"}');
    return '';
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new InvalidArgumentError('expected a JSON object {"name": "…"}');
  }
  const name = (body as { name?: unknown }).name;
  if (name === undefined && !o.required) return '';
  if (typeof name !== 'string') throw new InvalidArgumentError('name: expected a string');
  // eslint-disable-next-line no-control-regex -- control characters are what is refused
  if (name.length > MAX_NAME_CHARS || /[\u0000-\u001f\u007f]/.test(name)) {
    throw new InvalidArgumentError(`name: at most ${MAX_NAME_CHARS} characters, no control characters`);
  }
  return name;
}

export function readPage(query: Record<string, string | undefined>): {
  limit: number;
  before: string | undefined;
} {
  const rawLimit = query.limit ?? String(DEFAULT_PAGE_SIZE);
  const limit = Number(rawLimit);
  if (!/^\d+$/.test(rawLimit) || limit < 1 || limit > MAX_PAGE_SIZE) {
    throw new InvalidArgumentError(`limit: expected an integer from 1 to ${MAX_PAGE_SIZE}`);
  }
  const before = query.before;
  if (before !== undefined && !isStreamId(before)) {
    throw new InvalidArgumentError('before: expected an id such as 1700000000000-0');
  }
  return { limit, before };
}
