import type { FastifyRequest } from 'fastify';
import { InvalidArgumentError, NotFoundError, type HttpApp } from '@portcullis/kit';
import { ROLE_NAME } from '@portcullis/config';
import type { AdminToken } from '../admin-token.js';
import { addAdminSessionsRoutes } from '../auth/admin-sessions-routes.js';
import type { RefreshTokens } from '../auth/refresh-tokens.js';
import { routeNotFound } from '../errors.js';
import { readData } from '../request-data.js';
import type { AppStore } from './app-types.js';

export const ADMIN_PATH = '/admin';

export interface AdminRoutesOptions {
  store: AppStore;
  /** `GATEWAY_ADMIN_TOKEN`'s check: every admin request passes it. */
  adminToken: AdminToken;
  /** Refresh tokens, when on: their families are the users' sessions the admin lists and revokes. */
  refresh?: RefreshTokens;
  limits: { maxBodyBytes: number; maxBodyDepth: number };
  now?: () => number;
}

const NAME = /^[^\p{Cc}]{1,100}$/u;

/**
 * The admin API, beside the base path (so no route can shadow it): applications, their keys and users'
 * roles and sessions. Every request, to an unknown path under /admin too, passes `checkAdminToken` first:
 * `404 ADMIN_DISABLED` while the token is empty, else 401 without `Authorization: Bearer <GATEWAY_ADMIN_TOKEN>`.
 *
 * POST /admin/apps {name, roles?} → 201 the application; GET /admin/apps → {apps};
 * POST /admin/apps/{id}/keys {name, expiresAt?} → 201 {key, ...listing}: the key, shown this once;
 * GET /admin/apps/{id}/keys → {keys} (never a key); DELETE /admin/apps/{id}/keys/{keyId} → 204;
 * PUT /admin/users/{id}/roles {roles} → 200 {id, roles}; with refresh tokens on, the user's sessions
 * (`addAdminSessionsRoutes`).
 */
export function addAdminRoutes(app: HttpApp, o: AdminRoutesOptions): void {
  const now = o.now ?? Date.now;
  const body = (request: FastifyRequest) => readData(request.raw, o.limits);
  app.register(
    (admin, _opts, done) => {
      admin.addHook('onRequest', (request, _reply, next) => {
        try {
          o.adminToken.checkAdminToken(request);
          next();
        } catch (err: unknown) {
          next(err as Error);
        }
      });
      // an unknown admin path is checked too: without the token nobody learns which paths exist
      admin.setNotFoundHandler(() => {
        throw routeNotFound();
      });
      admin.post('/apps', async (request, reply) => {
        const data = await body(request);
        const created = await o.store.createApp({
          name: nameOf(data.name),
          roles: data.roles === undefined ? [] : rolesOf(data.roles),
        });
        return reply.code(201).send(created);
      });
      admin.get('/apps', async () => ({ apps: await o.store.listApps() }));
      admin.post<{ Params: { id: string } }>('/apps/:id/keys', async (request, reply) => {
        const data = await body(request);
        const expiresAt = expiryOf(data.expiresAt, now());
        const created = await o.store.createKey(request.params.id, {
          name: nameOf(data.name),
          ...(expiresAt ? { expiresAt } : {}),
        });
        if (!created) throw new NotFoundError('application not found');
        return reply.code(201).send({ key: created.key, ...created.info });
      });
      admin.get<{ Params: { id: string } }>('/apps/:id/keys', async (request) => {
        const keys = await o.store.listKeys(request.params.id);
        if (!keys) throw new NotFoundError('application not found');
        return { keys };
      });
      admin.delete<{ Params: { id: string; keyId: string } }>(
        '/apps/:id/keys/:keyId',
        async (request, reply) => {
          if (!(await o.store.revokeKey(request.params.id, request.params.keyId)))
            throw new NotFoundError('API key not found');
          return reply.code(204).send();
        },
      );
      admin.put<{ Params: { id: string } }>('/users/:id/roles', async (request) => {
        const roles = rolesOf((await body(request)).roles);
        await o.store.setUserRoles(request.params.id, roles);
        return { id: request.params.id, roles };
      });
      if (o.refresh) addAdminSessionsRoutes(admin, o.refresh);
      done();
    },
    { prefix: ADMIN_PATH },
  );
}

export function nameOf(v: unknown): string {
  if (typeof v !== 'string' || !NAME.test(v))
    throw new InvalidArgumentError('name: 1-100 printable characters');
  return v;
}

export function rolesOf(v: unknown): string[] {
  if (!Array.isArray(v) || v.length > 32 || !v.every((r) => typeof r === 'string' && ROLE_NAME.test(r)))
    throw new InvalidArgumentError(
      'roles: a list of at most 32 names of 1-64 characters from A-Z a-z 0-9 _ . : -',
    );
  return [...new Set(v as string[])];
}

/** An ISO 8601 time in the future, or undefined (absent) for a key that does not expire; null is refused. */
export function expiryOf(v: unknown, nowMs: number): string | undefined {
  if (v === undefined) return undefined;
  const ms = typeof v === 'string' ? Date.parse(v) : NaN;
  if (Number.isNaN(ms) || ms <= nowMs)
    throw new InvalidArgumentError('expiresAt: an ISO 8601 time in the future');
  return new Date(ms).toISOString();
}
