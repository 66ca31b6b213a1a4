import { describe, expect, it } from 'vitest';
import { ConfigError } from '../errors.js';
import { parseRateLimitConfig } from '../rate-limit-parse.js';
import { parseApiRoute } from './api-route.js';
import { CRD_SOURCES } from './definitions.js';
import { parseInboxEndpoint } from './inbox-endpoint.js';
import type { Schema } from './schema.js';

// Issue 35: the InboxEndpoint CRD admitted retention.maxBytes up to 10737418240 while the parser refused
// anything above 2^32-1, with a second, wrong message; a manifest Kubernetes accepted was rejected on its
// status. Every integer of a kind's schema at its bound must pass the parser too.

type Bound = 'minimum' | 'maximum';

/** `value` with every integer field the schema declares, in every object `value` holds, at `bound`. */
function atBound(schema: Schema, value: unknown, bound: Bound): unknown {
  if (Array.isArray(value)) return value.map((item) => atBound(schema.items as Schema, item, bound));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const [key, field] of Object.entries((schema.properties ?? {}) as Record<string, Schema>)) {
    if (field.type === 'integer' && typeof field[bound] === 'number') out[key] = field[bound];
    else if (out[key] !== undefined) out[key] = atBound(field, out[key], bound);
  }
  return out;
}

const problems = (parse: () => unknown): readonly string[] => {
  try {
    parse();
  } catch (e: unknown) {
    if (e instanceof ConfigError) return e.problems;
    throw e;
  }
  return [];
};

const endpoint = {
  endpointId: 'issue-35-0123456789abcdefgh',
  forward: [{ url: 'https://hooks.example.com/in', retry: {} }],
  retention: {},
  response: { headers: [{ name: 'X-Answer', value: 'yes' }] },
  signature: { provider: 'stripe', secretRef: { name: 'stripe', key: 'whsec' } },
};
const route = {
  routes: [
    {
      name: 'orders',
      method: 'GET',
      path: 'orders',
      backend: { service: 'orders', port: 8080 },
      rateLimit: { requestsPerUnit: 10, unit: 'second', descriptors: [{ key: 'ip', from: 'remoteAddress' }] },
    },
  ],
};

const rateLimits = {
  domain: 'issue-35',
  descriptors: [{ key: 'ip', rate_limit: { unit: 'second', requests_per_unit: 10 } }],
};

describe('issue 35: the parsers admit what the CRDs admit', () => {
  it('takes retention.maxBytes at the CRD maximum, 10737418240', () => {
    const spec = { ...endpoint, retention: { maxBytes: 10_737_418_240 } };
    expect(parseInboxEndpoint('ns/hook', spec).retention.maxBytes).toBe(10_737_418_240);
  });

  it('refuses retention past the CRD bounds with one message each', () => {
    const spec = { ...endpoint, retention: { maxRequests: -1, maxAgeHours: 8761, maxBytes: 10_737_418_241 } };
    expect(problems(() => parseInboxEndpoint('ns/hook', spec))).toEqual([
      'ns/hook: retention.maxRequests: must be at least 1',
      'ns/hook: retention.maxAgeHours: must be at most 8760',
      'ns/hook: retention.maxBytes: must be at most 10737418240',
    ]);
  });

  for (const bound of ['minimum', 'maximum'] as const) {
    it(`takes every integer of the InboxEndpoint schema at its ${bound}`, () => {
      const spec = atBound(CRD_SOURCES.InboxEndpoint.spec, endpoint, bound);
      expect(problems(() => parseInboxEndpoint('ns/hook', spec))).toEqual([]);
    });

    it(`takes every integer of the ApiRoute schema at its ${bound}`, () => {
      const spec = atBound(CRD_SOURCES.ApiRoute.spec, route, bound);
      expect(problems(() => parseApiRoute('ns/route', spec))).toEqual([]);
    });

    it(`takes every integer of the RateLimitConfig schema at its ${bound}`, () => {
      const spec = atBound(CRD_SOURCES.RateLimitConfig.spec, rateLimits, bound) as typeof rateLimits;
      // a token bucket needs requests_per_unit of at least 1: a rule across fields the operator checks
      if (bound === 'minimum') delete (spec.descriptors[0]?.rate_limit as { burst?: number }).burst;
      expect(problems(() => parseRateLimitConfig('ns/limits', spec))).toEqual([]);
    });
  }
});
