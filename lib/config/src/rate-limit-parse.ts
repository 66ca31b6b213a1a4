import { ConfigError } from './errors.js';
import {
  RATE_LIMIT_UNITS,
  type DescriptorRule,
  type RateLimitConfig,
  type RateLimitPolicy,
} from './rate-limit-types.js';

/** A location inside the input: map keys and list indexes from the root. */
export type ConfigPath = ReadonlyArray<string | number>;

export interface Problem {
  path: ConfigPath;
  message: string;
}

const ROOT_KEYS = new Set(['domain', 'descriptors']);
const DESCRIPTOR_KEYS = new Set([
  'key',
  'value',
  'rate_limit',
  'descriptors',
  'shadow_mode',
  'detailed_metric',
]);
const POLICY_KEYS = new Set(['unit', 'requests_per_unit', 'unlimited', 'name', 'replaces']);
const REPLACE_KEYS = new Set(['name']);
/** Upstream keys whose features are not implemented yet: rejected rather than silently ignored. */
const NOT_YET_SUPPORTED = new Set(['quota_mode', 'value_to_metric', 'share_threshold', 'metadata']);
/** YAML 1.1 booleans, as upstream's YAML parser reads them. */
const YAML_TRUE = new Set(['true', 'True', 'TRUE', 'yes', 'Yes', 'YES', 'on', 'On', 'ON', 'y', 'Y']);
const YAML_FALSE = new Set(['false', 'False', 'FALSE', 'no', 'No', 'NO', 'off', 'Off', 'OFF', 'n', 'N']);
const UINT32_MAX = 4_294_967_295;

export function formatPath(path: ConfigPath): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}

export function formatProblem(source: string, p: Problem): string {
  return p.path.length === 0 ? `${source}: ${p.message}` : `${source}: ${formatPath(p.path)}: ${p.message}`;
}

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
  checkReplaceTargets(read, domain, descriptors);
  return problems.length > 0 ? { problems } : { config: { domain, descriptors } };
}

class Reader {
  constructor(private readonly problems: Problem[]) {}

  /** Records a problem and returns `fallback`, the value parsing goes on with. */
  fail<T = undefined>(path: ConfigPath, message: string, fallback?: T): T {
    this.problems.push({ path, message });
    return fallback as T;
  }

  map(v: unknown, path: ConfigPath, allowed: ReadonlySet<string>): Record<string, unknown> | undefined {
    if (v === null || typeof v !== 'object' || Array.isArray(v)) {
      return this.fail(path, `expected a mapping, got ${describe(v)}`);
    }
    const record = v as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      if (NOT_YET_SUPPORTED.has(key)) this.fail([...path, key], `key '${key}' is not supported yet`);
      else if (!allowed.has(key)) this.fail([...path, key], `unknown key '${key}'`);
    }
    return record;
  }

  list(v: unknown, path: ConfigPath): unknown[] {
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) return this.fail(path, `expected a list, got ${describe(v)}`, []);
    return v;
  }

  str(v: unknown, path: ConfigPath): string | undefined {
    if (v === undefined || v === null) return undefined;
    if (typeof v === 'string') return v;
    if (typeof v === 'number' || typeof v === 'boolean') return String(v);
    return this.fail(path, `expected a string, got ${describe(v)}`);
  }

  bool(v: unknown, path: ConfigPath): boolean {
    if (v === undefined || v === null) return false;
    if (typeof v === 'boolean') return v;
    if (typeof v === 'string' && YAML_TRUE.has(v)) return true;
    if (typeof v === 'string' && YAML_FALSE.has(v)) return false;
    return this.fail(path, `expected true or false, got ${describe(v)}`, false);
  }

  uint32(v: unknown, path: ConfigPath): number {
    if (v === undefined || v === null) return 0;
    const n = typeof v === 'number' ? v : typeof v === 'string' && /^\+?\d+$/.test(v) ? Number(v) : NaN;
    if (Number.isInteger(n) && n >= 0 && n <= UINT32_MAX) return n;
    return this.fail(path, `expected an unsigned 32-bit integer, got ${describe(v)}`, 0);
  }
}

function describe(v: unknown): string {
  if (v === null || v === undefined) return 'nothing';
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object') return 'a mapping';
  return typeof v === 'string' ? `'${v}'` : JSON.stringify(v);
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
  return {
    key,
    value: read.str(m.value, [...path, 'value']) ?? '',
    rateLimit: rateLimit === undefined ? undefined : readPolicy(read, rateLimit, [...path, 'rate_limit']),
    shadowMode: read.bool(m.shadow_mode, [...path, 'shadow_mode']),
    detailedMetric: read.bool(m.detailed_metric, [...path, 'detailed_metric']),
    descriptors: readDescriptors(read, m.descriptors, [...path, 'descriptors']),
  };
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
    return { unlimited, name, replaces };
  }
  if (!unit) {
    return read.fail(
      [...path, 'unit'],
      unitText === ''
        ? `rate limit unit is required unless unlimited is true (one of ${RATE_LIMIT_UNITS.join(', ').toLowerCase()})`
        : `invalid rate limit unit '${unitText}' (expected one of ${RATE_LIMIT_UNITS.join(', ').toLowerCase()})`,
    );
  }
  return { unlimited, unit, requestsPerUnit, name, replaces };
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

/** A `replaces` entry must name a limit of the same domain, or it would silently do nothing. */
function checkReplaceTargets(read: Reader, domain: string, rules: readonly DescriptorRule[]): void {
  const names = new Set<string>();
  const replaced: Array<{ name: string; path: ConfigPath }> = [];
  const walk = (list: readonly DescriptorRule[], path: ConfigPath): void =>
    list.forEach((rule, i) => {
      const policy = rule.rateLimit;
      if (policy?.name) names.add(policy.name);
      policy?.replaces.forEach((name, j) =>
        replaced.push({ name, path: [...path, i, 'rate_limit', 'replaces', j] }),
      );
      walk(rule.descriptors, [...path, i, 'descriptors']);
    });
  walk(rules, ['descriptors']);
  for (const r of replaced) {
    if (!names.has(r.name))
      read.fail(r.path, `replaces '${r.name}', but no rate limit in domain '${domain}' has that name`);
  }
}
