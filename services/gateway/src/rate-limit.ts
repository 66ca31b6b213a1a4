import type { RouteRateLimit } from '@portcullis/config';
import type { DescriptorEntry, LocalLimitRule } from '@portcullis/ratelimit-client';
import type { GatewayRoute } from './router/route-types.js';
import type { Settings } from './settings.js';

export interface DescriptorSources {
  ip: string;
  headers: Record<string, string | string[] | undefined>;
  params: Record<string, string>;
  query: Record<string, unknown>;
  /** The caller's account id and token claims, when authenticated. */
  userId: string | undefined;
  claims: Record<string, unknown> | undefined;
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
    default: {
      const unknown: never = d.from;
      throw new Error(`unknown descriptor source ${String(unknown)}`);
    }
  }
}

/**
 * Sign-in (`POST /auth`), counted per client address and per user name (lower-cased: names are unique
 * regardless of case), so neither many names from one address nor one name from many addresses goes
 * unchecked; the inbox asks its domain the same way.
 */
export function signInDescriptors(ip: string, username: string): DescriptorEntry[][] {
  const action = { key: 'action', value: 'sign_in' };
  return [
    [action, { key: 'remote_address', value: ip }],
    [action, { key: 'username', value: username.toLowerCase() }],
  ];
}

/**
 * The in-process limits of sign-in, on the descriptors of `signInDescriptors`. Route limits have no fallback:
 * they live in ApiRoutes the operator turns into the service's rules.
 */
export function signInFallbackRules(s: Readonly<Settings>['ratelimit']): LocalLimitRule[] {
  const action = { key: 'action', value: 'sign_in' };
  return [
    {
      domain: s.authDomain,
      entries: [action, { key: 'remote_address' }],
      requestsPerUnit: s.fallback.signInPerAddressPerMinute,
      unit: 'minute',
    },
    {
      domain: s.authDomain,
      entries: [action, { key: 'username' }],
      requestsPerUnit: s.fallback.signInPerUsernamePerMinute,
      unit: 'minute',
    },
  ];
}
