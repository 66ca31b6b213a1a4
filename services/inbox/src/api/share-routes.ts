import { hashToken, type HttpApp, NotFoundError, withSpan } from '@portcullis/kit';
import type { InboxContext } from '../context.js';
import { ShareLimitError } from '../errors.js';
import type { ShareStreams } from '../live/share-streams.js';
import type { Settings } from '../settings.js';
import type { Authorize } from '../accounts/access.js';
import { createEndpointId, createEndpointToken } from './endpoint-credentials.js';

/** Share links one endpoint may have at once: each is a standing credential, so they stay few. */
export const MAX_SHARES_PER_ENDPOINT = 10;

type Params = { Params: { id: string } };
type ShareParams = { Params: { id: string; shareId: string } };

/**
 * The inspector opened read-only on an endpoint. The token is in the fragment, which the browser never
 * sends to a server (nor in a Referer), so it reaches no log on the way.
 */
export function shareUrl(settings: Pick<Settings, 'publicUrl'>, endpointId: string, token: string): string {
  return `${settings.publicUrl}/inspect/${endpointId}#share=${token}`;
}

/**
 * Read-only share links of an endpoint, managed by whoever manages it (a share token gets 403): create
 * one (its token shown this once; the store keeps its SHA-256), list them (without tokens), revoke one,
 * which also ends the live streams it opened.
 */
export function registerShareRoutes(
  app: HttpApp,
  ctx: InboxContext,
  guards: { authorize: Authorize; shareStreams: ShareStreams },
): void {
  const { store, settings } = ctx;
  const traced = <T>(name: string, fn: () => Promise<T>): Promise<T> =>
    withSpan('portcullis-inbox', name, () => fn());

  app.post<Params>('/api/endpoints/:id/shares', (request, reply) =>
    traced('inbox create share', async () => {
      const endpoint = await guards.authorize(request, request.params.id);
      // the same 256 random bits as an endpoint's token: nothing in a token tells what it opens
      const token = createEndpointToken();
      const share = {
        id: createEndpointId(),
        tokenSha256: hashToken(token),
        createdAt: new Date(ctx.now()).toISOString(),
      };
      const outcome = await store.createShare(endpoint.id, share, MAX_SHARES_PER_ENDPOINT);
      if (outcome === 'limit') throw new ShareLimitError(MAX_SHARES_PER_ENDPOINT);
      if (outcome === 'missing') throw new NotFoundError('no such endpoint');
      ctx.log.info({ endpointId: endpoint.id, shareId: share.id }, 'share created');
      void reply.code(201).header('cache-control', 'no-store');
      return {
        id: share.id,
        token,
        url: shareUrl(settings, endpoint.id, token),
        createdAt: share.createdAt,
      };
    }),
  );

  app.get<Params>('/api/endpoints/:id/shares', (request) =>
    traced('inbox list shares', async () => {
      const endpoint = await guards.authorize(request, request.params.id);
      const shares = await store.listShares(endpoint.id);
      return { shares: shares.map((s) => ({ id: s.id, createdAt: s.createdAt })) };
    }),
  );

  app.delete<ShareParams>('/api/endpoints/:id/shares/:shareId', (request, reply) =>
    traced('inbox revoke share', async () => {
      const endpoint = await guards.authorize(request, request.params.id);
      const { shareId } = request.params;
      if (!(await store.deleteShare(endpoint.id, shareId))) throw new NotFoundError('no such share');
      guards.shareStreams.revoke(endpoint.id, shareId);
      ctx.log.info({ endpointId: endpoint.id, shareId }, 'share revoked');
      return reply.code(204).send();
    }),
  );
}
