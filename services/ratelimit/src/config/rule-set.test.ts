import { ConfigError, parseRateLimitYaml } from '@portcullis/config';
import { describe, expect, it } from 'vitest';
import { Stats } from '../stats/stats.js';
import { matchRule, requestStatKey, sharedCounterEntries } from './match.js';
import { buildRuleSet, describeRuleSet } from './rule-set.js';

const a = parseRateLimitYaml(
  'a.yaml',
  'domain: d\ndescriptors:\n  - key: x\n    rate_limit: {unit: second, requests_per_unit: 1}\n',
);
const b = parseRateLimitYaml(
  'b.yaml',
  'domain: d\ndescriptors:\n  - key: y\n    rate_limit: {unit: hour, requests_per_unit: 2}\n',
);
const c = parseRateLimitYaml(
  'c.yaml',
  'domain: d\ndescriptors:\n  - key: x\n    rate_limit: {unit: day, requests_per_unit: 3}\n',
);

describe('buildRuleSet', () => {
  it('keeps the tree of each domain built from the same configurations as the previous rule set', () => {
    const yaml = (file: string, domain: string, rpu: number) =>
      parseRateLimitYaml(
        file,
        `domain: ${domain}\ndescriptors:\n  - key: x\n    rate_limit: {unit: second, requests_per_unit: ${rpu}}\n`,
      );
    const [e, f, g] = [yaml('e.yaml', 'e', 1), yaml('f.yaml', 'f', 2), yaml('g.yaml', 'g', 3)];
    const opts = { mergeDomains: true, stats: new Stats() };
    const previous = buildRuleSet([e, f, g], opts);
    const f2 = yaml('f.yaml', 'f', 20);
    const next = buildRuleSet([e, f2, g], { ...opts, previous });
    expect(next.domains.get('e')).toBe(previous.domains.get('e'));
    expect(next.domains.get('g')).toBe(previous.domains.get('g'));
    expect(next.domains.get('f')).not.toBe(previous.domains.get('f'));
    expect(describeRuleSet(next)).toBe(describeRuleSet(buildRuleSet([e, f2, g], opts)));
    // a domain merged from one more configuration, or one less, is built again
    const merged = buildRuleSet([e, f2, g, b], { ...opts, previous: next });
    expect(merged.domains.get('d')).toBeDefined();
    expect(buildRuleSet([e, g], { ...opts, previous: next }).domains.has('f')).toBe(false);
  });

  it('still rejects a duplicate domain whose first configuration is kept from the previous rule set', () => {
    const previous = buildRuleSet([a], { mergeDomains: false, stats: new Stats() });
    expect(() => buildRuleSet([a, b], { mergeDomains: false, stats: new Stats(), previous })).toThrow(
      new ConfigError(["b.yaml: duplicate domain 'd' in config file (also in a.yaml)"]),
    );
  });

  it('rejects one domain in two files unless merging', () => {
    expect(() => buildRuleSet([a, b], { mergeDomains: false, stats: new Stats() })).toThrow(
      new ConfigError(["b.yaml: duplicate domain 'd' in config file (also in a.yaml)"]),
    );
  });

  it('merges a domain across files, still rejecting a rule defined twice', () => {
    const rules = buildRuleSet([a, b], { mergeDomains: true, stats: new Stats() });
    const root = rules.domains.get('d');
    expect(root && matchRule(root, [{ key: 'y', value: '1' }])?.limit?.requestsPerUnit).toBe(2);
    expect(() => buildRuleSet([a, c], { mergeDomains: true, stats: new Stats() })).toThrow(
      new ConfigError(["c.yaml: duplicate descriptor composite key 'd.x'"]),
    );
  });

  it('keeps keys and values apart: (a_b, c) and (a, b_c) are different rules', () => {
    const config = parseRateLimitYaml(
      'q.yaml',
      `domain: q
descriptors:
  - key: a_b
    value: c
    rate_limit: {unit: second, requests_per_unit: 1}
  - key: a
    value: b_c
    rate_limit: {unit: second, requests_per_unit: 2}
`,
    );
    const root = buildRuleSet([config], { mergeDomains: false, stats: new Stats() }).domains.get('q');
    expect(root && matchRule(root, [{ key: 'a', value: 'b_c' }])?.limit?.requestsPerUnit).toBe(2);
    expect(root && matchRule(root, [{ key: 'a_b', value: 'c' }])?.limit?.requestsPerUnit).toBe(1);
  });

  it('describes the loaded rules one per line, as /rlconfig prints them', () => {
    const rules = buildRuleSet([a, b], { mergeDomains: true, stats: new Stats() });
    expect(describeRuleSet(rules)).toBe(
      'd.x: unit=SECOND requests_per_unit=1, shadow_mode: false, quota_mode: false\nd.y: unit=HOUR requests_per_unit=2, shadow_mode: false, quota_mode: false\n',
    );
  });

  it('refuses token buckets when the store has no atomic scripts (memcached), naming the rule', () => {
    const bucket = parseRateLimitYaml(
      'tb.yaml',
      'domain: d\ndescriptors:\n  - key: x\n    descriptors:\n      - key: y\n        rate_limits:\n          - {unit: second, requests_per_unit: 1}\n          - {unit: second, requests_per_unit: 1, burst: 5}\n',
    );
    expect(() =>
      buildRuleSet([bucket], { mergeDomains: false, stats: new Stats(), tokenBuckets: false }),
    ).toThrow(
      new ConfigError([
        'tb.yaml: d.x.y: burst (a token bucket) needs an atomic store; the object cache (memcached) has none: use redis or memory',
      ]),
    );
    const rules = buildRuleSet([bucket], { mergeDomains: false, stats: new Stats() });
    expect(describeRuleSet(rules)).toBe(
      'd.x.y: unit=SECOND requests_per_unit=1, shadow_mode: false, quota_mode: false\nd.x.y: unit=SECOND requests_per_unit=1, shadow_mode: false, quota_mode: false, algorithm: token_bucket burst=5\n',
    );
  });
});

const wild = parseRateLimitYaml(
  'w.yaml',
  `domain: w
descriptors:
  - key: k
    value: a*
    rate_limit: {unit: second, requests_per_unit: 1}
  - key: k
    value: ab*
    rate_limit: {unit: second, requests_per_unit: 2}
  - key: k
    value: abc
    rate_limit: {unit: second, requests_per_unit: 3}
  - key: k
    rate_limit: {unit: second, requests_per_unit: 4}
  - key: other
    value: '*'
    rate_limit: {unit: second, requests_per_unit: 5}
  - key: tenant
    value_to_metric: true
    descriptors:
      - key: file
        value: f/*
        share_threshold: true
        descriptors:
          - key: op
            value: r*
            value_to_metric: true
            rate_limit: {unit: second, requests_per_unit: 6}
`,
);

describe('matchRule', () => {
  const root = buildRuleSet([wild], { mergeDomains: false, stats: new Stats() }).domains.get('w');
  const limitOf = (...pairs: Array<[string, string]>): number | undefined =>
    root &&
    matchRule(
      root,
      pairs.map(([key, value]) => ({ key, value })),
    )?.limit?.requestsPerUnit;

  it('takes exact key+value, then the first wildcard in configuration order, then key-only', () => {
    expect(limitOf(['k', 'abc'])).toBe(3);
    expect(limitOf(['k', 'abd'])).toBe(1);
    expect(limitOf(['k', 'a'])).toBe(1);
    expect(limitOf(['k', 'xyz'])).toBe(4);
    expect(limitOf(['k', ''])).toBe(4);
  });

  it('tries wildcards of the entry key only; an empty value matches no wildcard', () => {
    expect(limitOf(['other', 'anything'])).toBe(5);
    expect(limitOf(['other', ''])).toBeUndefined();
    expect(limitOf(['nope', 'a'])).toBeUndefined();
  });

  it('follows wildcards down the tree', () => {
    expect(limitOf(['tenant', 't1'], ['file', 'f/1'], ['op', 'read'])).toBe(6);
    expect(limitOf(['tenant', 't1'], ['file', 'g/1'], ['op', 'read'])).toBeUndefined();
  });

  it('names statistics with pattern, value or key per level, and shares the counter key under the pattern', () => {
    const entries = [
      { key: 'tenant', value: 't1' },
      { key: 'file', value: 'f/1' },
      { key: 'op', value: 'read' },
    ];
    const node = root && matchRule(root, entries);
    expect(node && requestStatKey(node, entries)).toBe('tenant_t1.file_f/*.op_read');
    expect(node && sharedCounterEntries(node, entries)).toEqual([
      { key: 'tenant', value: 't1' },
      { key: 'file', value: 'f/*' },
      { key: 'op', value: 'read' },
    ]);
    const noTenant = [{ key: 'tenant', value: '' }, ...entries.slice(1)];
    expect(node && requestStatKey(node, noTenant)).toBe('tenant.file_f/*.op_read');
  });

  it('names a detailed_metric match key_value at every level, an empty value as `k_` (found by the differential suite)', () => {
    const detailed = buildRuleSet(
      [
        parseRateLimitYaml(
          'dm.yaml',
          'domain: dm\ndescriptors:\n  - key: b\n    descriptors:\n      - key: c\n        detailed_metric: true\n        rate_limit: {unit: hour, requests_per_unit: 1}\n',
        ),
      ],
      { mergeDomains: false, stats: new Stats() },
    ).domains.get('dm');
    const entries = [
      { key: 'b', value: '' },
      { key: 'c', value: 'x' },
    ];
    const node = detailed && matchRule(detailed, entries);
    expect(node && requestStatKey(node, entries)).toBe('b_.c_x');
  });

  it('keeps a share_threshold level at its pattern under detailed_metric, and names an empty value `k` there', () => {
    const shared = buildRuleSet(
      [
        parseRateLimitYaml(
          'sd.yaml',
          'domain: sd\ndescriptors:\n  - key: a\n    value: x*\n    share_threshold: true\n    descriptors:\n      - key: b\n        detailed_metric: true\n        rate_limit: {unit: hour, requests_per_unit: 1}\n',
        ),
      ],
      { mergeDomains: false, stats: new Stats() },
    ).domains.get('sd');
    const statKey = (b: string) => {
      const entries = [
        { key: 'a', value: 'x1' },
        { key: 'b', value: b },
      ];
      const node = shared && matchRule(shared, entries);
      return node && requestStatKey(node, entries);
    };
    expect(statKey('v')).toBe('a_x*.b_v');
    expect(statKey('')).toBe('a_x*.b');
  });

  it('names a level without value_to_metric by its rule under value_to_metric elsewhere on the path', () => {
    const entries = [
      { key: 'tenant', value: 't1' },
      { key: 'region', value: 'eu' },
    ];
    const mixed = buildRuleSet(
      [
        parseRateLimitYaml(
          'vm.yaml',
          'domain: vm\ndescriptors:\n  - key: tenant\n    value_to_metric: true\n    descriptors:\n      - key: region\n        rate_limit: {unit: hour, requests_per_unit: 1}\n',
        ),
      ],
      { mergeDomains: false, stats: new Stats() },
    ).domains.get('vm');
    const node = mixed && matchRule(mixed, entries);
    expect(node && requestStatKey(node, entries)).toBe('tenant_t1.region');
  });

  it('keeps the static statistics for rules without per-value names', () => {
    const node = root && matchRule(root, [{ key: 'k', value: 'abd' }]);
    expect(node?.limit?.stats).toBeDefined();
    expect(node?.statKey).toBe('k_a*');
  });
});
