import {
  ConfigError,
  UNIT_SECONDS,
  type DescriptorRule,
  type LimitedPolicy,
  type RateLimitAlgorithm,
  type RateLimitConfig,
  type RateLimitUnit,
} from '@portcullis/config';
import type { RuleStats, Stats } from '../stats.js';

/** A limit ready for the limiter: the rule's policy, its flags and where its statistics go. */
export interface Limit {
  requestsPerUnit: number;
  unit: RateLimitUnit;
  unitSeconds: number;
  name: string | undefined;
  shadowMode: boolean;
  /** Statistics of the rule; for `detailed_metric` rules they are looked up per request instead. */
  stats: RuleStats | undefined;
  algorithm: RateLimitAlgorithm;
  /** Token-bucket capacity; undefined for the window algorithms. */
  burst: number | undefined;
  /**
   * Appended to the cache key: '' for a rule's first limit (upstream's key), `:<i>` for entry i ≥ 1 of
   * `rate_limits`, so two limits whose windows start at the same second never share a counter.
   */
  keySuffix: string;
}

export interface RuleNode {
  /** Absent for whitelist and placeholder rules. */
  limit: Limit | undefined;
  /** `rate_limits` entries after the first (which is `limit`): all are counted together. */
  moreLimits: readonly Limit[];
  unlimited: boolean;
  replaces: readonly string[];
  detailedMetric: boolean;
  /** `key` or `key_value` path from the domain, e.g. `key1_value1.key2`. */
  statKey: string;
  children: ReadonlyMap<string, RuleNode>;
}

export interface RuleSet {
  domains: ReadonlyMap<string, ReadonlyMap<string, RuleNode>>;
  /** The configurations it was built from, in load order. */
  configs: readonly RateLimitConfig[];
}

/** Children are looked up by key and value as a pair, so `(a_b, c)` and `(a, b_c)` never collide. */
export function childKey(key: string, value: string): string {
  return `${key}\u0000${value}`;
}

/**
 * Builds the matching trees from validated configurations. The same domain in two configurations is an
 * error unless `mergeDomains`, which merges their top-level rules (a rule defined twice is still an
 * error). Throws a `ConfigError` listing every problem.
 */
export function buildRuleSet(
  configs: readonly RateLimitConfig[],
  opts: {
    mergeDomains: boolean;
    stats: Stats;
    /** False when the counter store cannot run token buckets: a rule with `burst` is then an error. */
    tokenBuckets?: boolean;
  },
): RuleSet {
  const problems: string[] = [];
  const domains = new Map<string, Map<string, RuleNode>>();
  const owners = new Map<string, string>();
  for (const config of configs) {
    const owner = owners.get(config.domain);
    if (owner !== undefined && !opts.mergeDomains) {
      problems.push(
        `${config.source}: duplicate domain '${config.domain}' in config file (also in ${owner})`,
      );
      continue;
    }
    owners.set(config.domain, owner ?? config.source);
    let root = domains.get(config.domain);
    if (!root) {
      root = new Map();
      domains.set(config.domain, root);
    }
    if (opts.tokenBuckets === false) problems.push(...findTokenBuckets(config));
    for (const rule of config.descriptors) {
      const key = childKey(rule.key, rule.value);
      if (root.has(key)) {
        problems.push(
          `${config.source}: duplicate descriptor composite key '${config.domain}.${composite(rule)}'`,
        );
        continue;
      }
      root.set(key, buildNode(rule, { domain: config.domain, parent: '', stats: opts.stats }));
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return { domains, configs };
}

function composite(rule: DescriptorRule): string {
  return rule.value === '' ? rule.key : `${rule.key}_${rule.value}`;
}

function findTokenBuckets(config: RateLimitConfig): string[] {
  const found: string[] = [];
  const walk = (rules: readonly DescriptorRule[], parent: string): void => {
    for (const rule of rules) {
      const path = `${parent}.${composite(rule)}`;
      if ([rule.rateLimit, ...rule.moreRateLimits].some((p) => p && !p.unlimited && p.burst !== undefined))
        found.push(
          `${config.source}: ${path}: burst (a token bucket) needs an atomic store; the object cache (memcached) has none: use redis or memory`,
        );
      walk(rule.descriptors, path);
    }
  };
  walk(config.descriptors, config.domain);
  return found;
}

function buildNode(rule: DescriptorRule, at: { domain: string; parent: string; stats: Stats }): RuleNode {
  const statKey = at.parent === '' ? composite(rule) : `${at.parent}.${composite(rule)}`;
  const policy = rule.rateLimit;
  const children = new Map<string, RuleNode>();
  for (const child of rule.descriptors) {
    children.set(childKey(child.key, child.value), buildNode(child, { ...at, parent: statKey }));
  }
  const stats = rule.detailedMetric ? undefined : at.stats.rule(at.domain, statKey);
  const toLimit = (p: LimitedPolicy, i: number): Limit => ({
    requestsPerUnit: p.requestsPerUnit,
    unit: p.unit,
    unitSeconds: UNIT_SECONDS[p.unit],
    name: p.name,
    shadowMode: rule.shadowMode,
    stats,
    algorithm: p.algorithm,
    burst: p.burst,
    keySuffix: i === 0 ? '' : `:${i}`,
  });
  return {
    limit: policy && !policy.unlimited ? toLimit(policy, 0) : undefined,
    moreLimits: rule.moreRateLimits.map((p, i) => toLimit(p, i + 1)),
    unlimited: policy?.unlimited ?? false,
    replaces: [policy, ...rule.moreRateLimits].flatMap((p) => p?.replaces ?? []),
    detailedMetric: rule.detailedMetric,
    statKey,
    children,
  };
}

/** One line per rule that has a limit, as upstream's `/rlconfig` prints them, sorted. */
export function describeRuleSet(rules: RuleSet): string {
  const lines: string[] = [];
  const walk = (domain: string, nodes: ReadonlyMap<string, RuleNode>): void => {
    for (const node of nodes.values()) {
      if (node.limit) {
        for (const l of [node.limit, ...node.moreLimits]) {
          // upstream's line for a fixed window; the algorithm only when it is another
          const algorithm =
            l.algorithm === 'fixed_window'
              ? ''
              : `, algorithm: ${l.algorithm}${l.burst === undefined ? '' : ` burst=${l.burst}`}`;
          lines.push(
            `${domain}.${node.statKey}: unit=${l.unit} requests_per_unit=${l.requestsPerUnit}, shadow_mode: ${l.shadowMode}${algorithm}`,
          );
        }
      } else if (node.unlimited) {
        lines.push(`${domain}.${node.statKey}: unlimited`);
      }
      walk(domain, node.children);
    }
  };
  for (const [domain, nodes] of rules.domains) walk(domain, nodes);
  return lines.sort().join('\n') + (lines.length > 0 ? '\n' : '');
}
