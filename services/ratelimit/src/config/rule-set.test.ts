import { ConfigError, parseRateLimitYaml } from '@portcullis/config';
import { describe, expect, it } from 'vitest';
import { Stats } from '../stats.js';
import { matchRule } from './match.js';
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
      'd.x: unit=SECOND requests_per_unit=1, shadow_mode: false\nd.y: unit=HOUR requests_per_unit=2, shadow_mode: false\n',
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
      'd.x.y: unit=SECOND requests_per_unit=1, shadow_mode: false\nd.x.y: unit=SECOND requests_per_unit=1, shadow_mode: false, algorithm: token_bucket burst=5\n',
    );
  });
});
