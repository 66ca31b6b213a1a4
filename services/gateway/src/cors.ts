import type { FastifyReply, FastifyRequest } from 'fastify';

const ALLOWED_HEADERS = 'Content-Type, Authorization';

/**
 * CORS for the configured origins only (`*` allows any origin, but never with credentials). Preflights
 * get the methods and headers; in session mode credentials are allowed so browsers send the cookie.
 */
export function applyCors(
  request: FastifyRequest,
  reply: FastifyReply,
  o: { origins: readonly string[]; credentials: boolean },
): void {
  const origin = request.headers.origin;
  if (!origin || o.origins.length === 0) return;
  const any = o.origins.includes('*');
  if (!any && !o.origins.includes(origin)) return;
  void reply.header('access-control-allow-origin', any ? '*' : origin);
  if (!any) void reply.header('vary', 'Origin');
  if (o.credentials && !any) void reply.header('access-control-allow-credentials', 'true');
  if (request.method === 'OPTIONS' && request.headers['access-control-request-method']) {
    void reply.header('access-control-allow-methods', 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS');
    void reply.header(
      'access-control-allow-headers',
      request.headers['access-control-request-headers'] ?? ALLOWED_HEADERS,
    );
    void reply.header('access-control-max-age', '600');
  }
}
