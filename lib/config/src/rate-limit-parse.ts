import { ConfigError } from './errors.js';
import { Reader, formatProblem, type ConfigPath, type Problem } from './reader.js';
import {
  RATE_LIMIT_UNITS,
  type DescriptorRule,
  type LimitedPolicy,
  type RateLimitConfig,
  type RateLimitPolicy,
  type StructValue,
} from './rate-limit-types.js';

const ROOT_KEYS = new Set(['domain', 'descriptors']);
const DESCRIPTOR_KEYS = new Set([
  'key',
  'value',
  'rate_limit',
  'rate_limits',
  'descriptors',
  'shadow_mode',
  'detailed_metric',
  'quota_mode',
  'value_to_metric',
  'share_threshold',
  'metadata',
]);
const POLICY_KEYS = new Set([
  'unit',
  'requests_per_unit',
  'unlimited',
  'name',
  'replaces',
  'algorithm',
  'burst',
]);
/** `algorithm` values a YAML file may name; `token_bucket` is chosen by `burst` alone. */
const WINDOW_ALGORITHMS = ['fixed_window', 'sliding_window'] as const;
const REPLACE_KEYS = new Set(['name']);

/**
 * Validates one rate-limit configuration given as plain data (parsed YAML, a custom resource's `spec`, a
 * decoded xDS resource) and returns the typed model. Scalars may arrive as text (YAML read without a
 * schema) or typed (JSON); both are accepted. Throws a `ConfigError` listing every problem.
 */
export function parseRateLimitConfig(source: string, input: unknown): RateLimitConfig {
  const result = checkRateLimitConfig(input);
  if ('problems' in result) throw new ConfigError(result.problems.map((p) => formatProblem(source, p)));
  return { source, ...result.config };
}

/** The checks of `parseRateLimitConfig`, returning the problems with their paths instead of throwing. */
export function checkRateLimitConfig(
  input: unknown,
): { config: Omit<RateLimitConfig, 'source'> } | { problems: Problem[] } {
  const problems: Problem[] = [];
  const read = new Reader(problems);
  const root = read.map(input, [], ROOT_KEYS);
  if (!root) return { problems };
  const domain = read.str(root.domain, ['domain']) ?? '';
  if (domain === '') read.fail(['domain'], 'config file cannot have empty domain');
  const descriptors = readDescriptors(read, root.descriptors, ['descriptors']);
  checkComposites(read, { domain, rules: descriptors, path: ['descriptors'] });
  return problems.length > 0 ? { problems } : { config: { domain, descriptors } };
}

function readDescriptors(read: Reader, v: unknown, path: ConfigPath): DescriptorRule[] {
  return read.list(v, path).flatMap((item, i) => readDescriptor(read, item, [...path, i]) ?? []);
}

function readDescriptor(read: Reader, v: unknown, path: ConfigPath): DescriptorRule | undefined {
  const m = read.map(v, path, DESCRIPTOR_KEYS);
  if (!m) return undefined;
  const key = read.str(m.key, [...path, 'key']) ?? '';
  if (key === '') read.fail([...path, 'key'], 'descriptor has empty key');
  const rateLimit = m.rate_limit ?? undefined;
  const value = read.str(m.value, [...path, 'value']) ?? '';
  const policy = rateLimit === undefined ? undefined : readPolicy(read, rateLimit, [...path, 'rate_limit']);
  const [first, ...more] = readPolicyList(read, m.rate_limits ?? undefined, [...path, 'rate_limits']);
  if (rateLimit !== undefined && first)
    read.fail([...path, 'rate_limits'], 'rate_limit and rate_limits are mutually exclusive; use one');
  const shareThreshold = read.bool(m.share_threshold, [...path, 'share_threshold']);
  if (shareThreshold && !value.includes('*')) {
    read.fail(
      [...path, 'share_threshold'],
      `share_threshold can only be used with wildcard values (containing '*'), but found key '${value === '' ? key : `${key}_${value}`}'`,
    );
  }
  return {
    key,
    value,
    rateLimit: rateLimit === undefined ? first : policy,
    moreRateLimits: more,
    shadowMode: read.bool(m.shadow_mode, [...path, 'shadow_mode']),
    detailedMetric: read.bool(m.detailed_metric, [...path, 'detailed_metric']),
    quotaMode: read.bool(m.quota_mode, [...path, 'quota_mode']),
    valueToMetric: read.bool(m.value_to_metric, [...path, 'value_to_metric']),
    shareThreshold,
    metadata: readMetadata(read, m.metadata, [...path, 'metadata']),
    descriptors: readDescriptors(read, m.descriptors, [...path, 'descriptors']),
  };
}

/** `metadata` must convert to a `google.protobuf.Struct`: a mapping of text keys to JSON-like values. */
function readMetadata(read: Reader, v: unknown, path: ConfigPath): Record<string, StructValue> | undefined {
  if (v === undefined || v === null) return undefined;
  const problem = structProblem(v, true);
  if (problem === undefined) return v as Record<string, StructValue>;
  return read.fail(path, `error parsing metadata: ${problem}`);
}

function structProblem(v: unknown, root: boolean): string | undefined {
  const isMapping =
    v !== null && typeof v === 'object' && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;
  if (root && !isMapping) return 'expected a mapping';
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return undefined;
  if (typeof v === 'number') return Number.isFinite(v) ? undefined : `${v} is not a finite number`;
  if (Array.isArray(v) || isMapping) {
    for (const item of Object.values(v)) {
      const problem = structProblem(item, false);
      if (problem !== undefined) return problem;
    }
    return undefined;
  }
  return `unsupported value of type ${typeof v}`;
}

/** `rate_limits`: several limits on one descriptor, all counted, the most restrictive answering. */
function readPolicyList(read: Reader, v: unknown, path: ConfigPath): LimitedPolicy[] {
  if (v === undefined) return [];
  const items = read.list(v, path);
  if (items.length === 0) return read.fail(path, 'rate_limits needs at least one limit', []);
  return items.flatMap((item, i) => {
    const policy = readPolicy(read, item, [...path, i]);
    if (!policy?.unlimited) return policy ? [policy] : [];
    return read.fail(
      [...path, i, 'unlimited'],
      'unlimited is not allowed inside rate_limits (use rate_limit: {unlimited: true})',
      [],
    );
  });
}

function readPolicy(read: Reader, v: unknown, path: ConfigPath): RateLimitPolicy | undefined {
  const m = read.map(v, path, POLICY_KEYS);
  if (!m) return undefined;
  const unlimited = read.bool(m.unlimited, [...path, 'unlimited']);
  const name = read.str(m.name, [...path, 'name']) || undefined;
  const replaces = readReplaces(read, m.replaces, { path: [...path, 'replaces'], ownName: name });
  const unitText = read.str(m.unit, [...path, 'unit']) ?? '';
  const unit = RATE_LIMIT_UNITS.find((u) => u === unitText.toUpperCase());
  const requestsPerUnit = read.uint32(m.requests_per_unit, [...path, 'requests_per_unit']);
  if (unlimited) {
    if (unit) read.fail([...path, 'unit'], 'should not specify rate limit unit when unlimited');
    for (const key of ['algorithm', 'burst'] as const)
      if (m[key] !== undefined && m[key] !== null)
        read.fail([...path, key], `should not specify ${key} when unlimited`);
    return { unlimited, name, replaces };
  }
  const algorithm = readAlgorithm(read, m, { path, requestsPerUnit });
  if (!unit) {
    return read.fail(
      [...path, 'unit'],
      unitText === ''
        ? `rate limit unit is required unless unlimited is true (one of ${RATE_LIMIT_UNITS.join(', ').toLowerCase()})`
        : `invalid rate limit unit '${unitText}' (expected one of ${RATE_LIMIT_UNITS.join(', ').toLowerCase()})`,
    );
  }
  return { unlimited, unit, requestsPerUnit, name, replaces, ...algorithm };
}

function readAlgorithm(
  read: Reader,
  m: Record<string, unknown>,
  at: { path: ConfigPath; requestsPerUnit: number },
): Pick<LimitedPolicy, 'algorithm' | 'burst'> {
  const text = read.str(m.algorithm, [...at.path, 'algorithm']);
  if (m.burst === undefined || m.burst === null) {
    const algorithm = WINDOW_ALGORITHMS.find((a) => a === (text ?? 'fixed_window'));
    if (algorithm) return { algorithm, burst: undefined };
    return read.fail(
      [...at.path, 'algorithm'],
      `invalid algorithm '${text ?? ''}' (expected ${WINDOW_ALGORITHMS.join(' or ')}; a token bucket is chosen by burst)`,
      { algorithm: 'fixed_window', burst: undefined },
    );
  }
  const burst = read.uint32(m.burst, [...at.path, 'burst']);
  if (text !== undefined)
    read.fail([...at.path, 'algorithm'], 'burst makes the limit a token bucket; remove algorithm');
  if (burst < 1) read.fail([...at.path, 'burst'], 'burst (the bucket capacity) must be at least 1');
  if (at.requestsPerUnit < 1)
    read.fail(
      [...at.path, 'requests_per_unit'],
      'a token bucket (burst) needs requests_per_unit of at least 1',
    );
  return { algorithm: 'token_bucket', burst };
}

function readReplaces(
  read: Reader,
  v: unknown,
  at: { path: ConfigPath; ownName: string | undefined },
): string[] {
  return read.list(v, at.path).flatMap((item, i) => {
    const path = [...at.path, i];
    const m = read.map(item, path, REPLACE_KEYS);
    if (!m) return [];
    const name = read.str(m.name, [...path, 'name']) ?? '';
    if (name === '') return read.fail(path, 'should not have an empty replaces entry', []);
    if (name === at.ownName)
      return read.fail(path, 'replaces should not contain name of same descriptor', []);
    return [name];
  });
}

/** Two rules under one parent with the same key and value would shadow each other. */
function checkComposites(
  read: Reader,
  at: { domain: string; rules: readonly DescriptorRule[]; path: ConfigPath; prefix?: string },
): void {
  const seen = new Set<string>();
  at.rules.forEach((rule, i) => {
    const composite = rule.value === '' ? rule.key : `${rule.key}_${rule.value}`;
    const full = `${at.prefix ?? at.domain}.${composite}`;
    // Compared as a (key, value) pair: upstream's joined string makes (a_b, c) collide with (a, b_c).
    const pair = `${rule.key}\u0000${rule.value}`;
    if (seen.has(pair)) read.fail([...at.path, i], `duplicate descriptor composite key '${full}'`);
    seen.add(pair);
    checkComposites(read, {
      ...at,
      rules: rule.descriptors,
      path: [...at.path, i, 'descriptors'],
      prefix: full,
    });
  });
}
