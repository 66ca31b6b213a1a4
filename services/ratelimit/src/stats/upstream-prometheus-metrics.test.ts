import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { aggregateMetrics } from '../workers/aggregate.js';
import { Stats } from './stats.js';

function upstreamRegistry(): { stats: Stats; registry: Registry } {
  const stats = new Stats();
  const registry = new Registry();
  stats.register(registry, 'upstream');
  return { stats, registry };
}

describe('Stats.register with upstream naming', () => {
  it('exports names, labels and types as upstream, series of names that map together summed', async () => {
    const { stats, registry } = upstreamRegistry();
    stats.rule('dom', 'k1_v1').total_hits.value += 3;
    stats.rule('dom', 'k2.k3').total_hits.value += 1;
    stats.rule('dom', 'k2.k3.k4').total_hits.value += 1;
    stats.counter('call.should_rate_limit.redis_error').value++;
    stats.domainNotFound('nope').value++;
    stats.gauge('ratelimit.localcache.entryCount', () => 7);
    stats.call('ShouldRateLimit').record(2.7);
    const text = await registry.metrics();
    expect(text).toContain('# TYPE ratelimit_service_rate_limit_total_hits counter');
    expect(text).toContain('ratelimit_service_rate_limit_total_hits{domain="dom",key1="k1_v1"} 3');
    expect(text).toContain('ratelimit_service_rate_limit_total_hits{domain="dom",key1="k2",key2="k3"} 2');
    expect(text).toContain('ratelimit_service_should_rate_limit_error{err_type="redis_error"} 1');
    expect(text).toContain('# TYPE ratelimit_service_rate_limit_nope_domain_not_found counter');
    expect(text).toContain('ratelimit_service_rate_limit_dom_k1_v1_over_limit_with_local_cache 0');
    expect(text).toContain('# TYPE ratelimit_localcache_entryCount gauge\nratelimit_localcache_entryCount 7');
    expect(text).toContain('ratelimit_service_total_requests{grpc_method="ShouldRateLimit"} 1');
    // whole milliseconds, as upstream's timer, in Go's default buckets
    expect(text).toContain('ratelimit_service_response_time_seconds_sum{grpc_method="ShouldRateLimit"} 2');
    expect(text).toContain(
      'ratelimit_service_response_time_seconds_bucket{le="5",grpc_method="ShouldRateLimit"} 1',
    );
    expect(text).not.toMatch(/descriptor=/);
  });

  it('adds a family for a name that appears after the first scrape', async () => {
    const { stats, registry } = upstreamRegistry();
    await registry.metrics();
    stats.domainNotFound('later').value++;
    const json = await registry.getMetricsAsJSON();
    expect(
      json.find((m) => m.name === 'ratelimit_service_rate_limit_later_domain_not_found')?.values,
    ).toEqual([{ value: 1, labels: {} }]);
  });

  it("adds up the workers' families, one worker's own names included, as the primary's /metrics does", async () => {
    const a = upstreamRegistry();
    const b = upstreamRegistry();
    a.stats.rule('dom', 'k').total_hits.value += 2;
    b.stats.rule('dom', 'k').total_hits.value += 3;
    b.stats.domainNotFound('only_b').value++;
    a.stats.call('ShouldRateLimit').record(1);
    b.stats.call('ShouldRateLimit').record(1);
    const text = await aggregateMetrics([
      await a.registry.getMetricsAsJSON(),
      await b.registry.getMetricsAsJSON(),
    ]);
    expect(text).toContain('ratelimit_service_rate_limit_total_hits{domain="dom",key1="k"} 5');
    expect(text).toContain('ratelimit_service_rate_limit_only_b_domain_not_found 1');
    expect(text).toContain('ratelimit_service_response_time_seconds_count{grpc_method="ShouldRateLimit"} 2');
  });
});
