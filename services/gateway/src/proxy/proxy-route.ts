import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Dispatcher } from 'undici';
import type { RouteTarget } from '@portcullis/config';
import type { Caller } from '../auth/caller.js';
import type { RequestPath } from '../request-path.js';
import type { GatewayRoute } from '../router/route-types.js';
import { forwardRequest } from './upstream.js';

export interface ProxyTarget {
  route: GatewayRoute;
  backend: Extract<RouteTarget, { kind: 'backend' }>;
  caller: Caller | undefined;
  path: RequestPath;
  /** The upstream connection pool (upstream-agent.ts). */
  agent: Dispatcher;
  /** `GATEWAY_BACKEND_HOST`: the host of `{service}` in `{namespace}`. */
  hostTemplate: string;
  /** `GATEWAY_MAX_BODY_BYTES`. */
  maxBodyBytes: number;
  /** The gateway's own credentials: the API-key header, and the session and refresh cookies' names. */
  credentials: { apiKeyHeader: string; cookies: readonly string[] };
}

/**
 * Forwards the request to the route's upstream Service and answers with its status, headers and streamed
 * body. The path sent is the backend's path followed by the request's segments after the route's prefix.
 * The gateway's credentials stay here: the API key, its cookies, and `Authorization` unless the backend
 * has `forwardAuthorization`.
 */
export async function proxyToBackend(
  request: FastifyRequest,
  reply: FastifyReply,
  to: ProxyTarget,
): Promise<FastifyReply> {
  const { backend } = to;
  const { host, pathBefore } = destinationOf(backend, to.hostTemplate);
  // as the client escaped it: decoded, `%3F` would become a query and `%20` an invalid request line
  const prefixSegments = to.route.prefix === '' ? 0 : to.route.prefix.split('/').length;
  const rest = to.path.rawSegments.slice(prefixSegments).join('/');
  const upstream = await forwardRequest({
    req: request.raw,
    agent: to.agent,
    host,
    port: backend.port,
    path: `${pathBefore}${rest}${to.path.search}`,
    timeoutMs: backend.timeoutSeconds * 1000,
    client: {
      ip: request.ip,
      protocol: request.protocol,
      // HTTP/2 names the host in its `:authority` pseudo-header
      host: request.headers.host ?? request.headers[':authority']?.toString() ?? '',
    },
    identity: to.caller ? { id: to.caller.account.id, username: to.caller.account.username } : undefined,
    credentials: {
      headers: backend.forwardAuthorization
        ? [to.credentials.apiKeyHeader]
        : [to.credentials.apiKeyHeader, 'authorization'],
      cookies: to.credentials.cookies,
    },
    maxBodyBytes: to.maxBodyBytes,
  });
  return reply.code(upstream.statusCode).headers(upstream.headers).send(upstream.body);
}

type Backend = ProxyTarget['backend'];

/** Per backend of the route table (a new table brings new ones): its host, and its path up to the request's. */
const destinations = new WeakMap<Backend, { host: string; pathBefore: string }>();

function destinationOf(backend: Backend, hostTemplate: string): { host: string; pathBefore: string } {
  let found = destinations.get(backend);
  if (!found) {
    const path = `${backend.path.replace(/(?<!\/)\/+$/, '')}/`;
    found = {
      host: hostTemplate
        .replaceAll('{service}', backend.service)
        .replaceAll('{namespace}', backend.namespace),
      pathBefore: path.startsWith('/') ? path : `/${path}`,
    };
    destinations.set(backend, found);
  }
  return found;
}
