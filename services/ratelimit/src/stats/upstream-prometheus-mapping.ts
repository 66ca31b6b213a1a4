/**
 * Upstream's `src/stats/prom/default_mapper.yaml`, entry for entry: how its Prometheus sink (statsd_exporter's
 * mapper inside the process) names the statsd statistics. `test/upstream-prometheus-names.test.ts` compares
 * it with the file in upstream's source.
 */
export interface StatsdMapping {
  match: string;
  match_type?: 'regex';
  name: string;
  match_metric_type?: 'counter';
  timer_type?: 'histogram';
  labels?: Record<string, string>;
}

const RULE_STATS = ['near_limit', 'over_limit', 'total_hits', 'within_limit', 'shadow_mode'] as const;

export const UPSTREAM_MAPPINGS: readonly StatsdMapping[] = [
  ...RULE_STATS.map((stat) => ({
    match: `ratelimit.service.rate_limit.*.*.${stat}`,
    name: `ratelimit_service_rate_limit_${stat}`,
    timer_type: 'histogram' as const,
    labels: { domain: '$1', key1: '$2' },
  })),
  ...RULE_STATS.map((stat) => ({
    match: String.raw`ratelimit\.service\.rate_limit\.([^\.]*)\.([^\.]*)\.([^\.]*)(\..*)?\.` + stat,
    match_type: 'regex' as const,
    name: `ratelimit_service_rate_limit_${stat}`,
    timer_type: 'histogram' as const,
    labels: { domain: '$1', key1: '$2', key2: '$3' },
  })),
  {
    match: 'ratelimit.service.call.should_rate_limit.*',
    name: 'ratelimit_service_should_rate_limit_error',
    match_metric_type: 'counter',
    labels: { err_type: '$1' },
  },
  {
    match: 'ratelimit_server.*.total_requests',
    name: 'ratelimit_service_total_requests',
    match_metric_type: 'counter',
    labels: { grpc_method: '$1' },
  },
  {
    match: 'ratelimit_server.*.response_time',
    name: 'ratelimit_service_response_time_seconds',
    timer_type: 'histogram',
    labels: { grpc_method: '$1' },
  },
  {
    match: 'ratelimit.service.config_load_success',
    name: 'ratelimit_service_config_load_success',
    match_metric_type: 'counter',
  },
  {
    match: 'ratelimit.service.config_load_error',
    name: 'ratelimit_service_config_load_error',
    match_metric_type: 'counter',
  },
];

export type StatsdType = 'counter' | 'gauge' | 'timer';

export interface MappedName {
  name: string;
  labels: Record<string, string>;
}

interface Compiled {
  regex: RegExp;
  mapping: StatsdMapping;
}

// statsd_exporter tries its glob mappings (a `*` is one dot-free part, the whole name must match) before
// its regular expressions, which match anywhere in the name as Go's regexp does
const GLOBS: Compiled[] = UPSTREAM_MAPPINGS.filter((m) => m.match_type !== 'regex').map((mapping) => ({
  regex: new RegExp(`^${mapping.match.split('*').map(escapeRegExp).join('([^.]*)')}$`),
  mapping,
}));
const REGEXES: Compiled[] = UPSTREAM_MAPPINGS.filter((m) => m.match_type === 'regex').map((mapping) => ({
  regex: new RegExp(mapping.match),
  mapping,
}));

/**
 * The Prometheus name and labels upstream's Prometheus sink gives the statsd statistic `name` of `type`: the
 * first mapping that matches, or, for a name none maps, the name with what Prometheus does not allow as `_`.
 */
export function mapUpstreamName(name: string, type: StatsdType): MappedName {
  for (const { regex, mapping } of [...GLOBS, ...REGEXES]) {
    if (mapping.match_metric_type && mapping.match_metric_type !== type) continue;
    const groups = regex.exec(name);
    if (!groups) continue;
    const expand = (template: string): string =>
      template.replace(/\$(\d+)/g, (_, i: string) => groups[Number(i)] ?? '');
    const labels: Record<string, string> = {};
    for (const [k, v] of Object.entries(mapping.labels ?? {})) labels[k] = expand(v);
    return { name: escapeMetricName(expand(mapping.name)), labels };
  }
  return { name: escapeMetricName(name), labels: {} };
}

/**
 * statsd_exporter's `EscapeMetricName`: a leading digit gets a `_` before it, every character outside
 * `[a-zA-Z0-9_]` becomes `_`, except that a run of `-` becomes a single `_`.
 */
export function escapeMetricName(name: string): string {
  return name.replace(/^[0-9]/, '_$&').replace(/-+|[^a-zA-Z0-9_]/gu, '_');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
