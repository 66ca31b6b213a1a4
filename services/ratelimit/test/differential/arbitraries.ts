import fc from 'fast-check';
import { stringify } from 'yaml';

// Generated rule sets and request sequences for the differential suite: small alphabets, so that requests
// meet rules often, and only what the peer knows (trailing wildcards, no quota_mode, no metadata).

export interface GeneratedRule {
  key: string;
  value?: string;
  rate_limit?:
    | { unlimited: true }
    | {
        unit: 'minute' | 'hour' | 'day';
        requests_per_unit: number;
        name?: string;
        replaces?: Array<{ name: string }>;
      };
  shadow_mode?: boolean;
  detailed_metric?: boolean;
  value_to_metric?: boolean;
  share_threshold?: boolean;
  descriptors?: GeneratedRule[];
}

export interface GeneratedRequest {
  hitsAddend?: number;
  descriptors: Array<{ entries: Array<{ key: string; value: string }>; hitsAddend?: number }>;
}

export interface GeneratedCase {
  /** Appended to the case's domain: punctuation and addresses upstream rewrites in statistic names. */
  domainTail: string;
  rules: GeneratedRule[];
  requests: GeneratedRequest[];
}

// Upstream names statistics through SanitizeStatName: `:` and `|` to `_`, the dots of each dotted IPv4 address
// to `_`, over the whole `<domain>.<descriptor>` name. Hence addresses alone, embedded, cut short or too long,
// IPv6 forms (only their colons change) and other punctuation, in domains, keys, rule values and requests;
// key `7` after the tail `1.2.3` makes an address that straddles the domain and a key.
const DOMAIN_TAILS = ['x', '10.0.0.1', '8080|x', '1.2.3', 'db8::1'];
const KEYS = ['a', 'b', 'c', '7'];
const RULE_VALUES = [
  'x',
  'y',
  'x*',
  'xy*',
  '10.0.0.1',
  '10.0.0.1:8080',
  'a.1.2.3.4.b',
  '2001:db8::1',
  '10.0.*',
  'p|q',
];
const REQUEST_VALUES = [
  ...['x', 'y', 'z', 'xy', 'xyz', ''],
  ...['10.0.0.1', '10.0.0.12', '10.0.0.1:8080', 'a.1.2.3.4.b', '1.2.3.4.5', '1234.5.6.7', '1.2.3'],
  ...['2001:db8::1', '::ffff:10.0.0.1', 'p|q', 'sp ace/%=,'],
];
const NAMES = ['n1', 'n2'];

const option = <T>(arb: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> => fc.option(arb, { nil: undefined });

const limitArb = fc.oneof(
  { weight: 1, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.constant({ unlimited: true as const }) },
  {
    weight: 4,
    arbitrary: fc.record(
      {
        unit: fc.constantFrom('minute' as const, 'hour' as const, 'day' as const),
        requests_per_unit: fc.integer({ min: 0, max: 4 }),
        name: fc.constantFrom(...NAMES),
        replaces: fc.constantFrom(...NAMES).map((name) => [{ name }]),
      },
      { requiredKeys: ['unit', 'requests_per_unit'] },
    ),
  },
);

const flag = option(fc.boolean());

function rulesArb(depth: number): fc.Arbitrary<GeneratedRule[]> {
  const rule = fc.record(
    {
      key: fc.constantFrom(...KEYS),
      value: option(fc.constantFrom(...RULE_VALUES)),
      rate_limit: limitArb,
      shadow_mode: flag,
      detailed_metric: flag,
      value_to_metric: flag,
      share_threshold: option(fc.boolean()),
      descriptors: depth > 1 ? option(rulesArb(depth - 1)) : fc.constant(undefined),
      // one rule set in ten may keep a mistake both must refuse
      keepMistakes: fc.integer({ min: 0, max: 9 }).map((n) => n === 0),
    },
    { requiredKeys: ['key', 'keepMistakes'] },
  );
  return fc
    .uniqueArray(rule, { minLength: 1, maxLength: 4, selector: (r) => `${r.key}=${r.value ?? ''}` })
    .map((rules) =>
      rules.map(({ keepMistakes, ...r }) => dropUndefined(keepMistakes ? r : withoutMistakes(r))),
    );
}

/** Without the two mistakes the generator makes most: `share_threshold` on a plain value, and a limit replacing itself. */
function withoutMistakes(rule: GeneratedRule): GeneratedRule {
  const limit = rule.rate_limit;
  const selfReplacing = limit && 'replaces' in limit && limit.replaces?.some((r) => r.name === limit.name);
  return {
    ...rule,
    share_threshold: rule.value?.endsWith('*') ? rule.share_threshold : undefined,
    rate_limit: selfReplacing ? { ...limit, replaces: undefined } : limit,
  };
}

function dropUndefined(rule: GeneratedRule): GeneratedRule {
  return Object.fromEntries(
    Object.entries(rule).filter(([, v]) => v !== undefined),
  ) as unknown as GeneratedRule;
}

/** Every path of entries from the top to a rule, with a value that rule matches. */
function pathsOf(
  rules: readonly GeneratedRule[],
  prefix: Array<[string, string]> = [],
): Array<Array<[string, string]>> {
  return rules.flatMap((r) => {
    const value = r.value === undefined ? 'free' : r.value.replace(/\*$/, 'q');
    const here: Array<[string, string]> = [...prefix, [r.key, value]];
    return [here, ...pathsOf(r.descriptors ?? [], here)];
  });
}

const hitsArb = option(fc.integer({ min: 0, max: 3 }));

function requestsArb(rules: readonly GeneratedRule[]): fc.Arbitrary<GeneratedRequest[]> {
  const paths = pathsOf(rules);
  const entry = fc.tuple(fc.constantFrom(...KEYS), fc.constantFrom(...REQUEST_VALUES));
  const entries = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...paths) },
    { weight: 1, arbitrary: fc.array(entry, { minLength: 1, maxLength: 3 }) },
  );
  const descriptor = fc.record({ entries, hitsAddend: hitsArb }).map(({ entries: e, hitsAddend }) => ({
    entries: e.map(([key, value]) => ({ key, value })),
    ...(hitsAddend === undefined ? {} : { hitsAddend }),
  }));
  const request = fc
    .record({ descriptors: fc.array(descriptor, { minLength: 1, maxLength: 3 }), hitsAddend: hitsArb })
    .map(({ descriptors, hitsAddend }) => ({
      descriptors,
      ...(hitsAddend === undefined ? {} : { hitsAddend }),
    }));
  return fc.array(request, { minLength: 3, maxLength: 12 });
}

export const caseArb: fc.Arbitrary<GeneratedCase> = fc
  .tuple(fc.constantFrom(...DOMAIN_TAILS), rulesArb(3))
  .chain(([domainTail, rules]) => requestsArb(rules).map((requests) => ({ domainTail, rules, requests })));

export function caseYaml(domain: string, c: GeneratedCase): string {
  return stringify({ domain, descriptors: c.rules });
}
