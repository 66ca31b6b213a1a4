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
 * Paths such as `descriptors[0].rate_limit.burst` of every YAML-only key set (not null) on a descriptor or a
 * rate-limit policy of a configuration given as plain data, in document order. Free-form maps (such as
 * `metadata`) are not looked into.
 */
export function findYamlOnlyKeys(input: unknown): string[] {
  const found: string[] = [];
  const mapAt = (v: unknown): Record<string, unknown> | undefined =>
    v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  const listAt = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
  const check = (m: Record<string, unknown>, path: ConfigPath): void => {
    for (const [key, value] of Object.entries(m))
      if (value !== null && value !== undefined && YAML_ONLY_KEYS.includes(key))
        found.push(formatPath([...path, key]));
  };
  const visitDescriptors = (v: unknown, path: ConfigPath): void =>
    listAt(v).forEach((item, i) => {
      const d = mapAt(item);
      if (!d) return;
      const at = [...path, i];
      check(d, at);
      const single = mapAt(d.rate_limit);
      if (single) check(single, [...at, 'rate_limit']);
      listAt(d.rate_limits).forEach((p, j) => {
        const policy = mapAt(p);
        if (policy) check(policy, [...at, 'rate_limits', j]);
      });
      visitDescriptors(d.descriptors, [...at, 'descriptors']);
    });
  visitDescriptors(mapAt(input)?.descriptors, ['descriptors']);
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
