import {
  ConfigError,
  UNIT_SECONDS,
  type DescriptorRule,
  type LimitedPolicy,
  type RateLimitAlgorithm,
  type RateLimitConfig,
  type RateLimitUnit,
  type StructValue,
} from '@portcullis/config';
import type { RuleStats, Stats } from '../stats/stats.js';
import { compileWildcard, isWildcard, type WildcardMatcher } from './wildcard.js';

/** A limit ready for the limiter: the rule's policy, its flags and where its statistics go. */
export interface Limit {
  requestsPerUnit: number;
  unit: RateLimitUnit;
  unitSeconds: number;
  name: string | undefined;
  shadowMode: boolean;
  /**
   * Statistics of the rule; undefined when their name depends on the request's values (`detailed_metric`,
   * `value_to_metric`), looked up per request instead.
   */
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

/** The rules under one parent (or at the top of a domain). */
export interface RuleLevel {
  /** By `childKey(key, value)`; wildcard rules are here too, under their pattern. */
  children: ReadonlyMap<string, RuleNode>;
  /** Rules whose value holds `*`, in configuration order: tried when the exact lookup misses. */
  wildcards: readonly WildcardRule[];
}

export interface WildcardRule {
  key: string;
  matches: WildcardMatcher;
  node: RuleNode;
}

export interface RuleNode extends RuleLevel {
  key: string;
  /** The rule's value: empty for key-only rules, the pattern for wildcard rules. */
  value: string;
  /** Undefined at the top of a domain. */
  parent: RuleNode | undefined;
  /** Absent for whitelist and placeholder rules. */
  limit: Limit | undefined;
  /** `rate_limits` entries after the first (which is `limit`): all are counted together. */
  moreLimits: readonly Limit[];
  unlimited: boolean;
  replaces: readonly string[];
  detailedMetric: boolean;
  valueToMetric: boolean;
  shareThreshold: boolean;
  quotaMode: boolean;
  metadata: Readonly<Record<string, StructValue>> | undefined;
  /** `key`, `key_value` or `key_pattern` path from the domain, e.g. `key1_value1.key2`. */
  statKey: string;
  /** This rule or a parent has `share_threshold`: the counter key uses the patterns. */
  sharesCounter: boolean;
}

export interface RuleSet {
  domains: ReadonlyMap<string, RuleLevel>;
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
 *
 * `previous`: the rule set in force, built with the same options. A domain built from the very same
 * configuration objects (the same ones, in the same order) keeps its tree from it, so that an update of
 * one domain among thousands rebuilds that domain alone.
 */
export function buildRuleSet(
  configs: readonly RateLimitConfig[],
  opts: {
    mergeDomains: boolean;
    stats: Stats;
    /** False when the counter store cannot run token buckets: a rule with `burst` is then an error. */
    tokenBuckets?: boolean;
    previous?: RuleSet;
  },
): RuleSet {
  const problems: string[] = [];
  const domains = new Map<string, RuleLevel>();
  const before = opts.previous
    ? configsByDomain(opts.previous.configs)
    : new Map<string, RateLimitConfig[]>();
  for (const [domain, group] of configsByDomain(configs)) {
    const kept = opts.previous?.domains.get(domain);
    const was = before.get(domain);
    if (kept && was?.length === group.length && was.every((c, i) => c === group[i])) {
      domains.set(domain, kept);
      continue;
    }
    const [first, ...others] = group;
    if (!first) continue;
    if (!opts.mergeDomains) {
      for (const config of others)
        problems.push(
          `${config.source}: duplicate domain '${domain}' in config file (also in ${first.source})`,
        );
    }
    const root = { children: new Map<string, RuleNode>(), wildcards: [] as WildcardRule[] };
    domains.set(domain, root);
    for (const config of opts.mergeDomains ? group : [first]) {
      if (opts.tokenBuckets === false) problems.push(...findTokenBuckets(config));
      for (const rule of config.descriptors) {
        if (root.children.has(childKey(rule.key, rule.value))) {
          problems.push(
            `${config.source}: duplicate descriptor composite key '${domain}.${composite(rule)}'`,
          );
          continue;
        }
        addNode(root, buildNode(rule, { domain, parent: undefined, stats: opts.stats }));
      }
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return { domains, configs };
}

/** The configurations of each domain, in load order; domains in the order they first appear. */
function configsByDomain(configs: readonly RateLimitConfig[]): Map<string, RateLimitConfig[]> {
  const byDomain = new Map<string, RateLimitConfig[]>();
  for (const config of configs) {
    const group = byDomain.get(config.domain);
    if (group) group.push(config);
    else byDomain.set(config.domain, [config]);
  }
  return byDomain;
}

function composite(rule: DescriptorRule): string {
  return rule.value === '' ? rule.key : `${rule.key}_${rule.value}`;
}

function addNode(
  level: { children: Map<string, RuleNode>; wildcards: WildcardRule[] },
  node: RuleNode,
): void {
  level.children.set(childKey(node.key, node.value), node);
  if (isWildcard(node.value))
    level.wildcards.push({ key: node.key, matches: compileWildcard(node.value), node });
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

function buildNode(
  rule: DescriptorRule,
  at: { domain: string; parent: RuleNode | undefined; stats: Stats },
): RuleNode {
  const statKey = at.parent ? `${at.parent.statKey}.${composite(rule)}` : composite(rule);
  const policy = rule.rateLimit;
  const valuesInStats = rule.detailedMetric || hasValueToMetric(rule, at.parent);
  const children = new Map<string, RuleNode>();
  const wildcards: WildcardRule[] = [];
  const stats = valuesInStats ? undefined : at.stats.rule(at.domain, statKey);
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
  const node: RuleNode = {
    key: rule.key,
    value: rule.value,
    parent: at.parent,
    limit: policy && !policy.unlimited ? toLimit(policy, 0) : undefined,
    moreLimits: rule.moreRateLimits.map((p, i) => toLimit(p, i + 1)),
    unlimited: policy?.unlimited ?? false,
    replaces: [policy, ...rule.moreRateLimits].flatMap((p) => p?.replaces ?? []),
    detailedMetric: rule.detailedMetric,
    valueToMetric: rule.valueToMetric,
    shareThreshold: rule.shareThreshold,
    quotaMode: rule.quotaMode,
    metadata: rule.metadata,
    statKey,
    sharesCounter: rule.shareThreshold || (at.parent?.sharesCounter ?? false),
    children,
    wildcards,
  };
  for (const child of rule.descriptors)
    addNode({ children, wildcards }, buildNode(child, { ...at, parent: node }));
  return node;
}

function hasValueToMetric(rule: DescriptorRule, parent: RuleNode | undefined): boolean {
  for (let n = parent; n; n = n.parent) if (n.valueToMetric) return true;
  return rule.valueToMetric;
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
            `${domain}.${node.statKey}: unit=${l.unit} requests_per_unit=${l.requestsPerUnit}, shadow_mode: ${l.shadowMode}, quota_mode: ${node.quotaMode}${algorithm}`,
          );
        }
      } else if (node.unlimited) {
        lines.push(`${domain}.${node.statKey}: unlimited`);
      }
      walk(domain, node.children);
    }
  };
  for (const [domain, level] of rules.domains) walk(domain, level.children);
  return lines.sort().join('\n') + (lines.length > 0 ? '\n' : '');
}
