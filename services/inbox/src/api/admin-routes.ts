import { type HttpApp, withSpan } from '@portcullis/kit';
import { receiveUrl, type InboxContext } from '../context.js';
import { parseStreamId, ZERO_STREAM_ID } from '../contract/stream-id.js';
import { createAdminCheck } from '../accounts/access.js';

/**
 * `GET /api/admin/endpoints`: the managed endpoints (InboxEndpoint resources) for the holder of the admin
 * token, with what the admin view lists: resource, targets, capture count, last capture. One row per
 * resource, by resource name, so the operator's resources bound it.
 */
export function registerAdminRoutes(app: HttpApp, ctx: InboxContext): void {
  const { store, settings } = ctx;
  const checkAdmin = createAdminCheck(settings.adminToken);
  app.get('/api/admin/endpoints', (request) =>
    withSpan('portcullis-inbox', 'inbox admin list endpoints', async () => {
      checkAdmin(request);
      const managed = (await store.listManagedEndpoints()).sort((a, b) =>
        a.resource.localeCompare(b.resource),
      );
      const endpoints = await Promise.all(
        managed.map(async (e) => {
          const [requestCount, lastId] = await Promise.all([
            store.countCaptures(e.id),
            store.lastCaptureId(e.id),
          ]);
          return {
            id: e.id,
            name: e.name,
            resource: e.resource,
            receiveUrl: receiveUrl(settings, e.id),
            createdAt: e.createdAt,
            forward: e.forward,
            requestCount,
            lastCaptureAt:
              lastId === ZERO_STREAM_ID ? null : new Date(parseStreamId(lastId)[0]).toISOString(),
          };
        }),
      );
      return { endpoints };
    }),
  );
}
