import { ruleStatName, sanitizeStatName } from '@portcullis/config';
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { CallStats, type TimingSample } from './call-stats.js';
import type { StatCounter } from './stat-counter.js';
import type { PrometheusNaming } from './stats-settings.js';
import { registerUpstreamMetrics } from './upstream-prometheus-metrics.js';
import { TaggedCounters } from './tagged-counters.js';

export const RULE_STATS = [
  'total_hits',
  'over_limit',
  'near_limit',
  'within_limit',
  'over_limit_with_local_cache',
  'shadow_mode',
] as const;
export type RuleStatName = (typeof RULE_STATS)[number];

/** The counters of one rule, `ratelimit.service.rate_limit.<domain>.<descriptor>.<stat>` upstream. */
export type RuleStats = Readonly<Record<RuleStatName, StatCounter>>;

const PREFIX = 'ratelimit.service';
export const DEFAULT_MAX_DYNAMIC_KEYS = 10_000;

/**
 * Every statistic of the service, named as upstream names them: a rule's and a domain's name made here,
 * through `sanitizeStatName`, for `/stats`, statsd, DogStatsD and Prometheus alike. Counters outlive
 * configuration reloads: a rule that comes back after a reload keeps counting where it was.
 */
export class Stats {
  private readonly service = new Map<string, StatCounter>();
  private readonly notFound = new Map<string, StatCounter>();
  private readonly rules = new Map<string, { domain: string; descriptor: string; stats: RuleStats }>();
  private readonly calls = new Map<string, CallStats>();
  /** Counters outside `ratelimit.service`, by full name. */
  private readonly named = new Map<string, StatCounter>();
  private readonly tagged = new TaggedCounters();
  /** Figures read when reported, by full name. */
  private readonly gauges = new Map<string, () => number>();
  private registry: Registry | undefined;
  private responseTimes: Histogram<'grpc_method'> | undefined;
  /** What the response-time histogram observes of a call's milliseconds. */
  private responseTimeValue = (ms: number): number => ms / 1000;
  /** Per domain, the hits of names `dynamicRule` had no room left for. */
  private readonly overflow = new Map<string, RuleStats>();
  private dynamicKeys = 0;

  /**
   * `maxDynamicKeys` (`STATS_MAX_DYNAMIC_KEYS`) bounds the names made from request values (detailed
   * metrics, `value_to_metric`, overrides), which callers choose and could grow without end.
   */
  constructor(
    private readonly o: { maxDynamicKeys: number } = { maxDynamicKeys: DEFAULT_MAX_DYNAMIC_KEYS },
  ) {}

  /** A service-level counter, e.g. `config_load_success` → `ratelimit.service.config_load_success`. */
  counter(name: string): StatCounter {
    return getOrCreate(this.service, name, () => ({ value: 0 }));
  }

  /**
   * Requests for a domain that no configuration defines: `ratelimit.service.rate_limit.<domain>.domain_not_found`.
   * Callers name the domain, so these names share the `maxDynamicKeys` budget; past it, requests for a domain
   * without an entry count in `ratelimit.service.domain_not_found_overflow`.
   */
  domainNotFound(domain: string): StatCounter {
    const name = sanitizeStatName(domain);
    const existing = this.notFound.get(name);
    if (existing) return existing;
    if (this.dynamicKeys >= this.o.maxDynamicKeys) return this.counter('domain_not_found_overflow');
    this.dynamicKeys++;
    return getOrCreate(this.notFound, name, () => ({ value: 0 }));
  }

  /**
   * The counters of the rule `<domain>.<descriptor>`, where descriptor is `key_value.key2…`; names that
   * sanitise alike share them, as upstream's.
   */
  rule(domain: string, descriptor: string): RuleStats {
    return this.ruleNamed(ruleStatName(domain, descriptor));
  }

  /** A counter under its full upstream name outside `ratelimit.service`, e.g. `ratelimit.redis_pool.cx_total`. */
  namedCounter(name: string): StatCounter {
    return getOrCreate(this.named, name, () => {
      const counter = { value: 0 };
      if (this.registry) registerNamedCounter(this.registry, name, counter);
      return counter;
    });
  }

  /**
   * A counter with tags under its full upstream name, e.g. `ratelimit.memcache.multiget` with `code=success`:
   * `ratelimit.memcache.multiget.__code=success` in `/stats` and statsd, `ratelimit_memcache_multiget{code="success"}`
   * in Prometheus.
   */
  taggedCounter(name: string, tags: Readonly<Record<string, string>>): StatCounter {
    return this.tagged.counter(name, tags);
  }

  /**
   * A figure read when it is reported, by its full name (`ratelimit.localcache.entryCount`): `/stats`, a
   * statsd gauge (`|g`) each flush, a Prometheus gauge (dots as underscores).
   */
  gauge(name: string, read: () => number): void {
    this.gauges.set(name, read);
    if (this.registry) registerGauge(this.registry, name, read);
  }

  /** Every gauge's current value. */
  *gaugeEntries(): Generator<[name: string, value: number]> {
    for (const [name, read] of this.gauges) yield [name, read()];
  }

  /** The gRPC server's statistics of `method`: `ratelimit_server.<method>.total_requests`, `.response_time`. */
  call(method: string): CallStats {
    return getOrCreate(this.calls, method, () => {
      const call = new CallStats(method);
      if (this.responseTimes) call.observeWith(this.responseTimes, this.responseTimeValue);
      return call;
    });
  }

  /** The response times of every gRPC method since the last call, by upstream name; for statsd. */
  *drainTimings(): Generator<[name: string, timings: TimingSample]> {
    for (const [method, call] of this.calls) yield [`ratelimit_server.${method}.response_time`, call.drain()];
  }

  /**
   * The counters of a name built from a request's values. Once `maxDynamicKeys` such names exist, a new
   * name gets no entry: its hits go to `ratelimit.service.rate_limit.<domain>.stats_overflow` instead.
   */
  dynamicRule(domain: string, descriptor: string): RuleStats {
    const named = ruleStatName(domain, descriptor);
    const existing = this.rules.get(named.name);
    if (existing) return existing.stats;
    if (this.dynamicKeys >= this.o.maxDynamicKeys)
      return getOrCreate(this.overflow, named.domain, createRuleStats);
    this.dynamicKeys++;
    return this.ruleNamed(named);
  }

  private ruleNamed({ name, domain, descriptor }: ReturnType<typeof ruleStatName>): RuleStats {
    return getOrCreate(this.rules, name, () => ({ domain, descriptor, stats: createRuleStats() })).stats;
  }

  /** Every statistic by its full upstream name, e.g. `ratelimit.service.rate_limit.d.k.total_hits`. */
  *entries(): Generator<[name: string, value: number]> {
    for (const [name, c] of this.service) yield [`${PREFIX}.${name}`, c.value];
    for (const [domain, c] of this.notFound)
      yield [`${PREFIX}.rate_limit.${domain}.domain_not_found`, c.value];
    for (const [name, { stats }] of this.rules) {
      for (const stat of RULE_STATS) yield [`${PREFIX}.rate_limit.${name}.${stat}`, stats[stat].value];
    }
    for (const [method, call] of this.calls)
      yield [`ratelimit_server.${method}.total_requests`, call.total_requests.value];
    for (const [name, counter] of this.named) yield [name, counter.value];
    yield* this.tagged.entries();
    for (const [domain, stats] of this.overflow)
      yield [`${PREFIX}.rate_limit.${domain}.stats_overflow`, stats.total_hits.value];
  }

  /** `name: value` for every statistic, sorted by name, as the debug port's `/stats` prints them. */
  lines(): string[] {
    return statsLines([...this.entries(), ...this.gaugeEntries()]);
  }

  /** What a statsd flush sends: every counter and gauge, and the timings since the last reading. */
  drainReading(): StatsReading {
    return {
      counters: [...this.entries()],
      gauges: [...this.gaugeEntries()],
      timings: [...this.drainTimings()],
    };
  }

  /**
   * Exposes the statistics as Prometheus counters, read at scrape time: rule stats as
   * `ratelimit_service_rate_limit_<stat>{domain,descriptor}`, service stats as
   * `ratelimit_service_<name>`, gRPC server statistics under the names upstream's Prometheus sink gives them.
   * With `naming` `upstream`, every statistic as upstream's Prometheus sink names it instead.
   */
  register(registry: Registry, naming: PrometheusNaming = 'portcullis'): void {
    if (naming === 'upstream') {
      // upstream's timer holds whole milliseconds, whatever the metric's name says
      this.responseTimeValue = Math.trunc;
      this.responseTimes = registerUpstreamMetrics(registry, {
        counters: () => this.entries(),
        gauges: () => this.gaugeEntries(),
      });
      for (const call of this.calls.values()) call.observeWith(this.responseTimes, this.responseTimeValue);
      return;
    }
    this.registry = registry;
    for (const [name, read] of this.gauges) registerGauge(registry, name, read);
    for (const [name, counter] of this.named) registerNamedCounter(registry, name, counter);
    this.tagged.register(registry);
    for (const stat of RULE_STATS) {
      const rules = this.rules;
      new Counter({
        name: `ratelimit_service_rate_limit_${stat}`,
        help: `Hits counted as ${stat.replaceAll('_', ' ')} per rate-limit rule.`,
        labelNames: ['domain', 'descriptor'],
        registers: [registry],
        collect() {
          this.reset();
          for (const { domain, descriptor, stats } of rules.values())
            this.inc({ domain, descriptor }, stats[stat].value);
        },
      });
    }
    const names = [
      'config_load_success',
      'config_load_error',
      'global_shadow_mode',
      'call.should_rate_limit.service_error',
      'call.should_rate_limit.redis_error',
      'domain_not_found_overflow',
    ];
    for (const name of names) registerNamedCounter(registry, `${PREFIX}.${name}`, this.counter(name));
    // the names upstream's Prometheus sink maps its gRPC server statistics to
    const calls = this.calls;
    new Counter({
      name: 'ratelimit_service_total_requests',
      help: 'gRPC calls received, answered or failed (not /json).',
      labelNames: ['grpc_method'],
      registers: [registry],
      collect() {
        this.reset();
        for (const [grpc_method, call] of calls) this.inc({ grpc_method }, call.total_requests.value);
      },
    });
    this.responseTimes = new Histogram({
      name: 'ratelimit_service_response_time_seconds',
      help: 'Time from a gRPC call received to its answer.',
      labelNames: ['grpc_method'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    });
    for (const call of calls.values()) call.observeWith(this.responseTimes, this.responseTimeValue);
    const overflow = this.overflow;
    new Counter({
      name: 'ratelimit_service_rate_limit_stats_overflow',
      help: 'Hits whose per-value statistic was not kept, STATS_MAX_DYNAMIC_KEYS being reached.',
      labelNames: ['domain'],
      registers: [registry],
      collect() {
        this.reset();
        for (const [domain, stats] of overflow) this.inc({ domain }, stats.total_hits.value);
      },
    });
    const notFound = this.notFound;
    new Counter({
      name: 'ratelimit_service_rate_limit_domain_not_found',
      help: 'Requests for a domain no configuration defines.',
      labelNames: ['domain'],
      registers: [registry],
      collect() {
        this.reset();
        for (const [domain, c] of notFound) this.inc({ domain }, c.value);
      },
    });
  }
}

/** Counters (cumulative), gauges, and timings since the previous reading, each by full name. */
export interface StatsReading {
  counters: Array<[name: string, value: number]>;
  gauges: Array<[name: string, value: number]>;
  timings: Array<[name: string, timings: TimingSample]>;
}

/** `name: value` lines sorted by name. */
export function statsLines(entries: ReadonlyArray<readonly [name: string, value: number]>): string[] {
  return [...entries]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => `${name}: ${value}`);
}

function createRuleStats(): RuleStats {
  return Object.fromEntries(RULE_STATS.map((s) => [s, { value: 0 }])) as Record<RuleStatName, StatCounter>;
}

function registerNamedCounter(registry: Registry, name: string, counter: StatCounter): void {
  new Counter({
    name: name.replaceAll('.', '_'),
    help: `Upstream statistic ${name}.`,
    registers: [registry],
    collect() {
      this.reset();
      this.inc(counter.value);
    },
  });
}

function registerGauge(registry: Registry, name: string, read: () => number): void {
  new Gauge({
    name: name.replaceAll('.', '_'),
    help: `Upstream statistic ${name}.`,
    registers: [registry],
    collect() {
      this.set(read());
    },
  });
}

function getOrCreate<K, V>(map: Map<K, V>, key: K, create: () => V): V {
  let value = map.get(key);
  if (value === undefined) {
    value = create();
    map.set(key, value);
  }
  return value;
}
