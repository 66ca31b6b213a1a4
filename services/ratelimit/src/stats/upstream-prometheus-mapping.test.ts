import { describe, expect, it } from 'vitest';
import { escapeMetricName, mapUpstreamName } from './upstream-prometheus-mapping.js';

// what upstream's Prometheus endpoint showed for these names (ratelimit-upstream, USE_PROMETHEUS=true)
describe('mapUpstreamName', () => {
  it('labels a rule of one key with domain and key1', () => {
    expect(mapUpstreamName('ratelimit.service.rate_limit.dom.k1_v1.total_hits', 'counter')).toEqual({
      name: 'ratelimit_service_rate_limit_total_hits',
      labels: { domain: 'dom', key1: 'k1_v1' },
    });
  });

  it('labels deeper rules with their first two keys only, so a 2nd and a 3rd level share a series', () => {
    const expected = {
      name: 'ratelimit_service_rate_limit_within_limit',
      labels: { domain: 'dom', key1: 'k2', key2: 'k3' },
    };
    expect(mapUpstreamName('ratelimit.service.rate_limit.dom.k2.k3.within_limit', 'counter')).toEqual(
      expected,
    );
    expect(mapUpstreamName('ratelimit.service.rate_limit.dom.k2.k3.k4.within_limit', 'counter')).toEqual(
      expected,
    );
  });

  it('leaves over_limit_with_local_cache of a one-key rule unmapped, and counts a deeper one in over_limit', () => {
    expect(
      mapUpstreamName('ratelimit.service.rate_limit.dom.k1_v1.over_limit_with_local_cache', 'counter'),
    ).toEqual({
      name: 'ratelimit_service_rate_limit_dom_k1_v1_over_limit_with_local_cache',
      labels: {},
    });
    // upstream's regular expressions are not anchored at the end
    expect(
      mapUpstreamName('ratelimit.service.rate_limit.dom.a.b.over_limit_with_local_cache', 'counter'),
    ).toEqual({
      name: 'ratelimit_service_rate_limit_over_limit',
      labels: { domain: 'dom', key1: 'a', key2: 'b' },
    });
  });

  it('maps the service statistics and escapes the rest', () => {
    expect(mapUpstreamName('ratelimit.service.call.should_rate_limit.redis_error', 'counter')).toEqual({
      name: 'ratelimit_service_should_rate_limit_error',
      labels: { err_type: 'redis_error' },
    });
    expect(mapUpstreamName('ratelimit_server.ShouldRateLimit.total_requests', 'counter')).toEqual({
      name: 'ratelimit_service_total_requests',
      labels: { grpc_method: 'ShouldRateLimit' },
    });
    expect(mapUpstreamName('ratelimit.service.config_load_success', 'counter').name).toBe(
      'ratelimit_service_config_load_success',
    );
    expect(mapUpstreamName('ratelimit.service.rate_limit.nope.domain_not_found', 'counter')).toEqual({
      name: 'ratelimit_service_rate_limit_nope_domain_not_found',
      labels: {},
    });
    expect(mapUpstreamName('ratelimit.localcache.entryCount', 'gauge').name).toBe(
      'ratelimit_localcache_entryCount',
    );
  });

  it('maps counter-only names only for counters', () => {
    expect(mapUpstreamName('ratelimit.service.config_load_success', 'gauge').name).toBe(
      'ratelimit_service_config_load_success',
    );
    expect(mapUpstreamName('ratelimit.service.call.should_rate_limit.redis_error', 'gauge')).toEqual({
      name: 'ratelimit_service_call_should_rate_limit_redis_error',
      labels: {},
    });
  });
});

describe('escapeMetricName', () => {
  it("escapes as statsd_exporter's EscapeMetricName", () => {
    expect(escapeMetricName('a.b-c')).toBe('a_b_c');
    expect(escapeMetricName('a--b---c')).toBe('a_b_c');
    expect(escapeMetricName('a.-b')).toBe('a__b');
    expect(escapeMetricName('1a')).toBe('_1a');
    expect(escapeMetricName('é.x')).toBe('__x');
  });
});
