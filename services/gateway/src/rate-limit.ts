import type { FastifyReply } from 'fastify';
import type { RouteRateLimit } from '@portcullis/config';
import {
  enforceRateLimit,
  RateLimitedError,
  RateLimitUnavailableError,
  type DescriptorEntry,
  type RateLimitClient,
} from '@portcullis/ratelimit-client';
import type { GatewayRoute } from './router/route-types.js';

/**
 * Asks the rate-limit service and sets the `RateLimit-*` headers it answered on `reply`.
 * @throws RateLimitedError (429, with `Retry-After`) over a limit; RateLimitUnavailableError (503) when
 * the service cannot be asked and the failure mode is `deny`.
 */
export async function enforceLimits(
  client: RateLimitClient,
  reply: FastifyReply,
  request: { domain: string; descriptors: readonly DescriptorEntry[][] },
): Promise<void> {
  const { outcome, headers } = await enforceRateLimit(client, request);
  if (outcome === 'limited') throw new RateLimitedError(headers, 'Too many requests');
  // failure mode deny: the service could not be asked, which is not the caller's doing
  if (outcome === 'unavailable') throw new RateLimitUnavailableError();
  void reply.headers(headers);
}

export interface DescriptorSources {
  ip: string;
  headers: Record<string, string | string[] | undefined>;
  params: Record<string, string>;
  query: Record<string, unknown>;
  /** The caller's account id and token claims, when authenticated. */
  userId: string | undefined;
  claims: Record<string, unknown> | undefined;
  /** The API key's application id; undefined for any other caller. */
  appId: string | undefined;
  /** The first of the route's roles the caller holds (`checkRouteRoles`); undefined on a route without roles. */
  role: string | undefined;
}

/**
 * The descriptor a route's limit is asked with: `route=<route id>`, then each configured entry with its
 * value taken from the request. A value the request does not have is sent empty, so all such requests
 * share one counter rather than escaping the limit. The operator turns the same routes into the rules of
 * the gateway's rate-limit domain, in this shape.
 */
export function routeDescriptor(
  route: GatewayRoute,
  limit: RouteRateLimit,
  from: DescriptorSources,
): Array<{ key: string; value: string }> {
  return [
    { key: 'route', value: route.id },
    ...limit.descriptors.map((d) => ({ key: d.key, value: valueOf(d, from) })),
  ];
}

function valueOf(d: RouteRateLimit['descriptors'][number], from: DescriptorSources): string {
  switch (d.from) {
    case 'remoteAddress':
      return from.ip;
    case 'user':
      return from.userId ?? '';
    case 'header': {
      const v = from.headers[d.name.toLowerCase()];
      return Array.isArray(v) ? (v[0] ?? '') : (v ?? '');
    }
    case 'pathParam':
      return from.params[d.name] ?? '';
    case 'query': {
      const v = from.query[d.name];
      return typeof v === 'string' ? v : Array.isArray(v) ? String(v[0] ?? '') : '';
    }
    case 'claim': {
      const v = from.claims?.[d.name];
      return typeof v === 'string' || typeof v === 'number' ? String(v) : '';
    }
    case 'app':
      return from.appId ?? '';
    case 'role':
      return from.role ?? '';
    default: {
      const unknown: never = d.from;
      throw new Error(`unknown descriptor source ${String(unknown)}`);
    }
  }
}
