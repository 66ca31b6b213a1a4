import { ConfigError } from './errors.js';
import { formatProblem, type ConfigPath, type Problem } from './reader.js';
import type { DescriptorRule, RateLimitConfig } from './rate-limit-types.js';

/**
 * The `replaces` entries that name no rate limit of the configuration's domain: they replace nothing.
 * Upstream loads such a file, and so does the ratelimit service (it logs them); the operator refuses them in
 * a resource, where they are a mistake to report in its status.
 */
export function findDanglingReplaces(config: RateLimitConfig): string[] {
  const names = new Set<string>();
  const replaced: Array<{ name: string; path: ConfigPath }> = [];
  const walk = (list: readonly DescriptorRule[], path: ConfigPath): void =>
    list.forEach((rule, i) => {
      const many = rule.moreRateLimits.length > 0;
      [rule.rateLimit, ...rule.moreRateLimits].forEach((policy, k) => {
        const at = many ? [...path, i, 'rate_limits', k] : [...path, i, 'rate_limit'];
        if (policy?.name) names.add(policy.name);
        policy?.replaces.forEach((name, j) => replaced.push({ name, path: [...at, 'replaces', j] }));
      });
      walk(rule.descriptors, [...path, i, 'descriptors']);
    });
  walk(config.descriptors, ['descriptors']);
  return replaced
    .filter((r) => !names.has(r.name))
    .map((r): Problem => ({
      path: r.path,
      message: `replaces '${r.name}', but no rate limit in domain '${config.domain}' has that name`,
    }))
    .map((p) => formatProblem(config.source, p));
}

/** Throws a `ConfigError` listing `findDanglingReplaces`, if any. */
export function refuseDanglingReplaces(config: RateLimitConfig): void {
  const problems = findDanglingReplaces(config);
  if (problems.length > 0) throw new ConfigError(problems);
}
