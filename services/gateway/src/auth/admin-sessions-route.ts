import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  countRawHeader,
  hashToken,
  InvalidArgumentError,
  isTokenHashMatch,
  MethodNotAllowedError,
  NotFoundError,
} from '@portcullis/kit';
import { authError } from '../errors.js';
import { parseQuery } from '../request-data.js';
import { bearerToken } from './jwt.js';
import type { RefreshFamily } from './refresh-store.js';
import type { RefreshTokens } from './refresh-tokens.js';

/** Below the base path; served while `GATEWAY_ADMIN_TOKEN` is set and refresh tokens are on. */
export const ADMIN_SESSIONS_PATH = 'auth/sessions';
const METHODS = ['DELETE', 'GET', 'OPTIONS'];

export type AdminSessionsRoute = (
  request: FastifyRequest,
  reply: FastifyReply,
  search: string,
) => Promise<unknown>;

/**
 * `<base>/auth/sessions?user=<account id>`: `GET` lists the user's refresh-token families (one per
 * sign-in), `DELETE` revokes one (`&family=<id>`) or all of them, their access tokens with them. Only for
 * `Authorization: Bearer <GATEWAY_ADMIN_TOKEN>`.
 */
export function createAdminSessionsRoute(o: {
  adminToken: string;
  refresh: RefreshTokens;
}): AdminSessionsRoute {
  const adminHash = hashToken(o.adminToken);
  const checkAdmin = (request: FastifyRequest): void => {
    if (countRawHeader(request.raw.rawHeaders, 'authorization') > 1)
      throw authError('Invalid Authorization header', { scheme: 'Bearer', detail: 'invalid_request' });
    const token = bearerToken(request.headers.authorization);
    if (token === undefined) throw authError('Admin token required', { scheme: 'Bearer' });
    if (!isTokenHashMatch(token, adminHash))
      throw authError('Invalid token', { scheme: 'Bearer', detail: 'invalid_token' });
  };
  return async (request, reply, search) => {
    if (request.method === 'OPTIONS') return reply.code(204).header('allow', METHODS.join(', ')).send();
    if (request.method !== 'GET' && request.method !== 'DELETE')
      throw new MethodNotAllowedError('Method not allowed', METHODS);
    checkAdmin(request);
    const query = parseQuery(search);
    const user = typeof query.user === 'string' ? query.user : '';
    if (user === '') throw new InvalidArgumentError("Required parameter: 'user' missing!");
    if (request.method === 'GET') return { user, families: (await o.refresh.list(user)).map(toView) };
    const family = typeof query.family === 'string' ? query.family : undefined;
    const ids = family === undefined ? (await o.refresh.list(user)).map((f) => f.id) : [family];
    const ended = await Promise.all(ids.map((id) => o.refresh.end(id, user)));
    const revoked = ended.filter((f) => f !== undefined).length;
    if (family !== undefined && revoked === 0) throw new NotFoundError('No such session');
    return { user, revoked };
  };
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
