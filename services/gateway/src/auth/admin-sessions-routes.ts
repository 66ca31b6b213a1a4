import type { FastifyInstance } from 'fastify';
import { NotFoundError } from '@portcullis/kit';
import type { RefreshFamily } from './refresh-store.js';
import type { RefreshTokens } from './refresh-tokens.js';

/**
 * A user's sign-ins (refresh-token families), in the admin API beside the user's roles; the caller has passed
 * the admin token check. `GET /admin/users/{id}/sessions` → `{user, families}`, oldest first;
 * `DELETE /admin/users/{id}/sessions` → `{user, revoked}`: all of them, their access tokens with them;
 * `DELETE /admin/users/{id}/sessions/{family}` → 204, or 404 when the user has no such live family.
 */
export function addAdminSessionsRoutes(admin: FastifyInstance, refresh: RefreshTokens): void {
  admin.get<{ Params: { id: string } }>('/users/:id/sessions', async (request) => {
    const user = request.params.id;
    return { user, families: (await refresh.list(user)).map(toView) };
  });
  admin.delete<{ Params: { id: string } }>('/users/:id/sessions', async (request) => {
    const user = request.params.id;
    const families = await refresh.list(user);
    const ended = await Promise.all(families.map((f) => refresh.end(f.id, user)));
    return { user, revoked: ended.filter((f) => f !== undefined).length };
  });
  admin.delete<{ Params: { id: string; family: string } }>(
    '/users/:id/sessions/:family',
    async (request, reply) => {
      if (!(await refresh.end(request.params.family, request.params.id)))
        throw new NotFoundError('No such session');
      return reply.code(204).send();
    },
  );
}

function toView(f: RefreshFamily) {
  return {
    id: f.id,
    createdAt: new Date(f.createdAt).toISOString(),
    lastUsedAt: new Date(f.lastUsedAt).toISOString(),
    expiresAt: new Date(f.expiresAt).toISOString(),
    userAgent: f.userAgent,
    address: f.address,
  };
}
