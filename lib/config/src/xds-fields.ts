import { NotSupportedOverXdsError } from './errors.js';
import { formatPath, type ConfigPath } from './reader.js';

/**
 * Rate-limit YAML keys that upstream's xDS message (`ratelimit.config.ratelimit.v3.RateLimitConfig`) has no
 * field for. A file may use them; a RateLimitConfig resource served over xDS may not, since they would be
 * lost on the way to the service. Descriptor keys and rate-limit policy keys alike.
 */
export const YAML_ONLY_KEYS: readonly string[] = [
  'value_to_metric',
  'share_threshold',
  'rate_limits',
  'algorithm',
  'burst',
];

/**
 * Paths such as `descriptors[0].rate_limit.burst` of every YAML-only key set (not null) in a rate-limit
 * configuration given as plain data, in document order.
 */
export function findYamlOnlyKeys(input: unknown): string[] {
  const found: string[] = [];
  const visit = (v: unknown, path: ConfigPath): void => {
    if (Array.isArray(v)) {
      v.forEach((item, i) => visit(item, [...path, i]));
      return;
    }
    if (v === null || typeof v !== 'object') return;
    for (const [key, child] of Object.entries(v as Record<string, unknown>)) {
      if (child === null || child === undefined) continue;
      if (YAML_ONLY_KEYS.includes(key)) found.push(formatPath([...path, key]));
      visit(child, [...path, key]);
    }
  };
  visit(input, []);
  return found;
}

/** Throws a `NotSupportedOverXdsError` naming every YAML-only key `input` (from `source`) sets. */
export function checkXdsCompatible(source: string, input: unknown): void {
  const paths = findYamlOnlyKeys(input);
  if (paths.length === 0) return;
  throw new NotSupportedOverXdsError(
    paths.map(
      (p) =>
        `${source}: ${p}: not supported over xDS (upstream's RateLimitConfig message has no such field); it works in a YAML file only`,
    ),
  );
}
