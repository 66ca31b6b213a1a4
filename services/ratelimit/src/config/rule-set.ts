import {
  ConfigError,
  UNIT_SECONDS,
  type DescriptorRule,
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
}

export interface RuleNode {
  /** Absent for whitelist and placeholder rules. */
  limit: Limit | undefined;
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
  opts: { mergeDomains: boolean; stats: Stats },
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

function buildNode(rule: DescriptorRule, at: { domain: string; parent: string; stats: Stats }): RuleNode {
  const statKey = at.parent === '' ? composite(rule) : `${at.parent}.${composite(rule)}`;
  const policy = rule.rateLimit;
  const children = new Map<string, RuleNode>();
  for (const child of rule.descriptors) {
    children.set(childKey(child.key, child.value), buildNode(child, { ...at, parent: statKey }));
  }
  const limit: Limit | undefined =
    policy && !policy.unlimited
      ? {
          requestsPerUnit: policy.requestsPerUnit,
          unit: policy.unit,
          unitSeconds: UNIT_SECONDS[policy.unit],
          name: policy.name,
          shadowMode: rule.shadowMode,
          stats: rule.detailedMetric ? undefined : at.stats.rule(at.domain, statKey),
        }
      : undefined;
  return {
    limit,
    unlimited: policy?.unlimited ?? false,
    replaces: policy?.replaces ?? [],
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
        const l = node.limit;
        lines.push(
          `${domain}.${node.statKey}: unit=${l.unit} requests_per_unit=${l.requestsPerUnit}, shadow_mode: ${l.shadowMode}`,
        );
      } else if (node.unlimited) {
        lines.push(`${domain}.${node.statKey}: unlimited`);
      }
      walk(domain, node.children);
    }
  };
  for (const [domain, nodes] of rules.domains) walk(domain, nodes);
  return lines.sort().join('\n') + (lines.length > 0 ? '\n' : '');
}
