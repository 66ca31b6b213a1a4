import { parseSamples } from './prometheus-text.js';

/**
 * The per-rule statistics the report uses, in this order, as the ratelimit service names them on its
 * `/metrics` (`ratelimit_service_rate_limit_<stat>{domain,descriptor}`, upstream's
 * `ratelimit.service.rate_limit.<domain>.<descriptor>.<stat>`).
 */
export const RULE_STATS = ['total_hits', 'over_limit', 'near_limit', 'within_limit', 'shadow_mode'] as const;

/** Hits per statistic, indexed as `RULE_STATS`. */
export type Counts = number[];

/** Counts by domain, then by descriptor (`key_value.key2…`, the rule's statistics key). */
export type DomainCounts = Map<string, Map<string, Counts>>;

/** What one scrape of one ratelimit instance says. */
export interface InstanceReading {
  /** `process_start_time_seconds` in ms: a different value means the counters started again. */
  startedAtMs: number | undefined;
  rules: DomainCounts;
}

const METRIC_INDEX = new Map<string, number>(
  RULE_STATS.map((s, i) => [`ratelimit_service_rate_limit_${s}`, i]),
);
const START_TIME = 'process_start_time_seconds';
const WANTED = new Set([...METRIC_INDEX.keys(), START_TIME]);

export function zeroCounts(): Counts {
  return RULE_STATS.map(() => 0);
}

/** The counts of a rule in `byDomain`, added at zero when missing. */
export function countsOf(byDomain: DomainCounts, domain: string, descriptor: string): Counts {
  let byDescriptor = byDomain.get(domain);
  if (!byDescriptor) byDomain.set(domain, (byDescriptor = new Map<string, Counts>()));
  let counts = byDescriptor.get(descriptor);
  if (!counts) byDescriptor.set(descriptor, (counts = zeroCounts()));
  return counts;
}

/** The rule statistics and start time of an instance's text exposition. */
export function readInstance(text: string): InstanceReading {
  const rules: DomainCounts = new Map();
  let startedAtMs: number | undefined;
  for (const s of parseSamples(text, WANTED)) {
    if (s.name === START_TIME) {
      startedAtMs = s.value * 1000;
      continue;
    }
    const { domain, descriptor } = s.labels;
    const index = METRIC_INDEX.get(s.name);
    if (domain === undefined || descriptor === undefined || index === undefined || !(s.value >= 0)) continue;
    const counts = countsOf(rules, domain, descriptor);
    // EXTRA_TAGS add labels: instances with several label sets for one rule are summed
    counts[index] = (counts[index] ?? 0) + s.value;
  }
  return { startedAtMs, rules };
}
