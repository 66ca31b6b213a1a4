import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { MethodNotAllowedError } from '@portcullis/kit';
import type { AdminToken } from '../admin-token.js';
import type { Authenticator } from '../auth/authenticator.js';
import type { RouteTable } from '../router/route-table.js';
import { buildOpenApiDocument } from './openapi-document.js';
import type { DocumentContext } from './types.js';

const METHODS = ['GET', 'HEAD', 'OPTIONS'];

/** Serves `<base>/openapi.json` for the table the request is served by. */
export type OpenApiRoute = (
  request: FastifyRequest,
  reply: FastifyReply,
  table: RouteTable,
) => Promise<unknown>;

interface Built {
  table: RouteTable;
  text: string;
  etag: string;
}

/**
 * `GET <base>/openapi.json`: the document of `table`, serialised once per table. Each route update builds a
 * new table (xDS `apply` → `Dispatcher.setTable`), so a new table is what makes the document stale: it is
 * rebuilt on the first request after it, never for updates nobody reads. `ETag` is the text's hash;
 * `If-None-Match` with it answers 304. With `access: 'auth'` the caller needs the credentials of the auth
 * mode (as a route with `auth: true`). A caller presenting the admin token (while it is set) gets the
 * document with the admin API instead, whatever `access` says, and no one else does; that answer is
 * `private`, and every answer `Vary: Authorization`.
 */
export function createOpenApiRoute(o: {
  ctx: DocumentContext;
  auth: Authenticator;
  adminToken: AdminToken;
}): OpenApiRoute {
  const built = { public: undefined as Built | undefined, admin: undefined as Built | undefined };
  const documentOf = (table: RouteTable, reader: keyof typeof built): Built => {
    const cached = built[reader];
    if (cached?.table === table) return cached;
    const doc = buildOpenApiDocument(table.routes, o.ctx, { admin: reader === 'admin' });
    const text = JSON.stringify(doc);
    const etag = `"${createHash('sha256').update(text).digest('base64url').slice(0, 27)}"`;
    return (built[reader] = { table, text, etag });
  };
  return async (request, reply, table) => {
    if (request.method === 'OPTIONS') return reply.code(204).header('allow', METHODS.join(', ')).send();
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      throw new MethodNotAllowedError('Method not allowed', METHODS);
    }
    const admin = o.adminToken.isAdminRequest(request);
    if (!admin) {
      // credentials sent are checked on an open route too, as everywhere
      const caller = await o.auth.identify(request);
      if (o.ctx.access === 'auth' && o.ctx.mode !== 'none' && !caller) throw o.auth.missing();
    }
    const { text, etag } = documentOf(table, admin ? 'admin' : 'public');
    void reply
      .header('etag', etag)
      .header('vary', 'Authorization')
      .header('cache-control', o.ctx.access === 'auth' || admin ? 'private, no-cache' : 'no-cache');
    if (matchesEtag(request.headers['if-none-match'], etag)) return reply.code(304).send();
    return reply.type('application/json; charset=utf-8').send(text);
  };
}

function matchesEtag(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  return header.split(',').some((t) => {
    const tag = t.trim();
    return tag === '*' || tag === etag || tag === `W/${etag}`;
  });
}
