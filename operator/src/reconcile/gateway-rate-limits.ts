import type { ApiRouteSpec, DescriptorRule, RateLimitConfig, RouteRateLimit } from '@portcullis/config';

/** The xDS resource name of the generated configuration. */
export const GATEWAY_RATE_LIMITS_NAME = 'portcullis/gateway-routes';

/**
 * The rate-limit rules of the gateway's domain, generated from the served ApiRoutes: for each route with a
 * `rateLimit`, `route=<namespace/name/route>` and then one key-only level per request-derived descriptor,
 * the limit on the deepest. The gateway asks with descriptors of exactly this shape.
 */
export function gatewayRateLimitConfig(
  domain: string,
  routes: ReadonlyArray<{ name: string; model: ApiRouteSpec }>,
): RateLimitConfig {
  const descriptors: DescriptorRule[] = [];
  for (const { name, model } of routes) {
    for (const route of model.routes) {
      if (route.rateLimit)
        descriptors.push(rule('route', `${name}/${route.name}`, chain(route.rateLimit, 0)));
    }
  }
  return { source: GATEWAY_RATE_LIMITS_NAME, domain, descriptors };
}

function chain(
  limit: RouteRateLimit,
  i: number,
): Pick<DescriptorRule, 'rateLimit' | 'descriptors' | 'shadowMode'> {
  const next = limit.descriptors[i];
  if (!next) {
    return {
      rateLimit: {
        unlimited: false,
        unit: limit.unit,
        requestsPerUnit: limit.requestsPerUnit,
        name: undefined,
        replaces: [],
        algorithm: 'fixed_window',
        burst: undefined,
      },
      descriptors: [],
      shadowMode: limit.shadowMode,
    };
  }
  return { rateLimit: undefined, descriptors: [rule(next.key, '', chain(limit, i + 1))], shadowMode: false };
}

function rule(
  key: string,
  value: string,
  rest: Pick<DescriptorRule, 'rateLimit' | 'descriptors' | 'shadowMode'>,
): DescriptorRule {
  return {
    key,
    value,
    detailedMetric: false,
    quotaMode: false,
    valueToMetric: false,
    shareThreshold: false,
    metadata: undefined,
    moreRateLimits: [],
    ...rest,
  };
}
