import {
  ruleStatName,
  type DescriptorRule,
  type RateLimitConfig,
  type RuleReport,
  type ShadowReport,
} from '@portcullis/config';
import { zeroCounts, type Counts } from './instance-reading.js';

/** Counts that differ by more than this share of the larger are a change worth a status write. */
const CHANGE_RATIO = 0.1;

/**
 * The rules of a configuration by statistics key, as the ratelimit service names them (`key` or
 * `key_value`, joined by `.` from the domain, sanitised as upstream: `ruleStatName`), with their shadow mode
 * and whether they have a limit. Rules under `detailed_metric` or `value_to_metric` are counted under keys
 * made from request values instead.
 */
export function indexRules(config: RateLimitConfig): Map<string, { shadowMode: boolean; limited: boolean }> {
  const index = new Map<string, { shadowMode: boolean; limited: boolean }>();
  const walk = (rules: readonly DescriptorRule[], parent: string, valuesInStats: boolean): void => {
    for (const rule of rules) {
      const key = `${parent}${rule.value === '' ? rule.key : `${rule.key}_${rule.value}`}`;
      const named = valuesInStats || rule.detailedMetric || rule.valueToMetric;
      const limited =
        (rule.rateLimit !== undefined && !rule.rateLimit.unlimited) || rule.moreRateLimits.length > 0;
      if (!named)
        index.set(ruleStatName(config.domain, key).descriptor, { shadowMode: rule.shadowMode, limited });
      walk(rule.descriptors, `${key}.`, valuesInStats || rule.valueToMetric);
    }
  };
  walk(config.descriptors, '', false);
  return index;
}

/**
 * The report of one configuration from its domain's hits: every rule with a limit and every key with hits,
 * most hits first, cut at `maxRules`.
 */
export function buildReport(o: {
  config: RateLimitConfig;
  hits: ReadonlyMap<string, Counts> | undefined;
  maxRules: number;
  windowMs: number;
  fromMs: number;
  uncountedMs: number;
  nowMs: number;
}): ShadowReport {
  const index = indexRules(o.config);
  const keys = new Set([
    ...[...index].filter(([, r]) => r.limited).map(([k]) => k),
    ...(o.hits?.keys() ?? []),
  ]);
  const rules = [...keys].map((key): RuleReport => {
    const [totalHits, overLimit, nearLimit, withinLimit, shadowModeHits] = o.hits?.get(key) ?? zeroCounts();
    const rule = index.get(key);
    return {
      key,
      ...(rule ? { shadowMode: rule.shadowMode } : {}),
      totalHits: totalHits ?? 0,
      overLimit: overLimit ?? 0,
      nearLimit: nearLimit ?? 0,
      withinLimit: withinLimit ?? 0,
      shadowModeHits: shadowModeHits ?? 0,
    };
  });
  rules.sort((a, b) => b.totalHits - a.totalHits || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const uncountedSeconds = Math.round(o.uncountedMs / 1000);
  return {
    domain: o.config.domain,
    windowSeconds: Math.round(o.windowMs / 1000),
    from: isoSeconds(o.fromMs),
    collectedAt: isoSeconds(o.nowMs),
    ...(uncountedSeconds > 0 ? { uncountedSeconds } : {}),
    shadowModeHits: rules.reduce((sum, r) => sum + r.shadowModeHits, 0),
    rules: rules.slice(0, o.maxRules),
    truncated: Math.max(0, rules.length - o.maxRules),
  };
}

/** What an earlier report lets a new leader carry forward (`HitWindow.carry`). */
export interface CarriedReport {
  atMs: number;
  fromMs: number;
  uncountedMs: number;
  /** Counts by rule key, as `RULE_STATS`. */
  rules: Map<string, Counts>;
}

/**
 * The counts of a report written earlier (by another leader, or this replica before it restarted) that
 * can be carried into a window of `windowMs` ending at `nowMs` for `domain`: a report of the same domain,
 * collected within the window, over a window no longer than this one (a longer one counted hits this one
 * would not). The rules it lists are carried whatever the configuration now says: a rule dropped since
 * still had those hits, as a leader that stayed would keep them. Truncated rules' counts are not in it.
 */
export function carriedReport(
  report: ShadowReport | undefined,
  o: { domain: string; windowMs: number; nowMs: number },
): CarriedReport | undefined {
  if (!report || !Array.isArray(report.rules) || report.domain !== o.domain) return undefined;
  if (!(report.windowSeconds * 1000 <= o.windowMs)) return undefined;
  const atMs = Date.parse(report.collectedAt);
  const fromMs = Date.parse(report.from);
  if (!Number.isFinite(atMs) || !Number.isFinite(fromMs) || atMs <= o.nowMs - o.windowMs) return undefined;
  const rules = new Map<string, Counts>();
  for (const r of report.rules)
    rules.set(r.key, [r.totalHits, r.overLimit, r.nearLimit, r.withinLimit, r.shadowModeHits]);
  return {
    atMs,
    fromMs: Math.max(fromMs, atMs - report.windowSeconds * 1000),
    uncountedMs: (report.uncountedSeconds ?? 0) * 1000,
    rules,
  };
}

/**
 * Whether `after` says something `before` does not: another domain, other rules, a rule's shadow mode, or a
 * count that appeared, vanished or moved by more than `CHANGE_RATIO`. The times and `uncountedSeconds`
 * alone are no reason to write.
 */
export function isReportChanged(before: ShadowReport | undefined, after: ShadowReport): boolean {
  if (!before || !Array.isArray(before.rules) || before.domain !== after.domain) return true;
  if (before.windowSeconds !== after.windowSeconds || before.truncated !== after.truncated) return true;
  if (moved(before.shadowModeHits, after.shadowModeHits) || before.rules.length !== after.rules.length)
    return true;
  const previous = new Map(before.rules.map((r) => [r.key, r]));
  return after.rules.some((r) => {
    const p = previous.get(r.key);
    return (
      !p ||
      p.shadowMode !== r.shadowMode ||
      moved(p.totalHits, r.totalHits) ||
      moved(p.overLimit, r.overLimit) ||
      moved(p.nearLimit, r.nearLimit) ||
      moved(p.withinLimit, r.withinLimit) ||
      moved(p.shadowModeHits, r.shadowModeHits)
    );
  });
}

function moved(a: number, b: number): boolean {
  return a !== b && (a === 0 || b === 0 || Math.abs(a - b) > CHANGE_RATIO * Math.max(a, b));
}

/** Kubernetes' timestamps: seconds, UTC. */
function isoSeconds(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
}
