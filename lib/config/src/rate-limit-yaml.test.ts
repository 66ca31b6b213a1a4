import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from './errors.js';
import { parseRateLimitYaml } from './rate-limit-yaml.js';
import { findDanglingReplaces, refuseDanglingReplaces } from './replace-targets.js';

const testdata = join(import.meta.dirname, '../testdata/rate-limit');

/** Every fixture under testdata/rate-limit/invalid, with the exact problems it must produce. */
const INVALID: Record<string, string[]> = {
  'misspelled-key.yaml': ["misspelled-key.yaml:4: descriptors[0].rate_limt: unknown key 'rate_limt'"],
  'bad-unit.yaml': [
    "bad-unit.yaml:5: descriptors[0].rate_limit.unit: invalid rate limit unit 'fortnight' (expected one of second, minute, hour, day, week, month, year)",
  ],
  'missing-unit.yaml': [
    'missing-unit.yaml:4: descriptors[0].rate_limit.unit: rate limit unit is required unless unlimited is true (one of second, minute, hour, day, week, month, year)',
  ],
  'missing-key.yaml': ['missing-key.yaml:3: descriptors[0].key: descriptor has empty key'],
  'empty-domain.yaml': ['empty-domain.yaml:1: domain: config file cannot have empty domain'],
  'missing-domain.yaml': ['missing-domain.yaml:1: domain: config file cannot have empty domain'],
  'duplicate-descriptor.yaml': [
    "duplicate-descriptor.yaml:7: descriptors[0].descriptors[1]: duplicate descriptor composite key 'test.a_b.c'",
    "duplicate-descriptor.yaml:8: descriptors[1]: duplicate descriptor composite key 'test.a_b'",
  ],
  'unlimited-with-unit.yaml': [
    'unlimited-with-unit.yaml:6: descriptors[0].rate_limit.unit: should not specify rate limit unit when unlimited',
  ],
  'replaces-empty.yaml': [
    'replaces-empty.yaml:8: descriptors[0].rate_limit.replaces[0]: should not have an empty replaces entry',
  ],
  'replaces-self.yaml': [
    'replaces-self.yaml:9: descriptors[0].rate_limit.replaces[0]: replaces should not contain name of same descriptor',
  ],
  'negative-requests.yaml': [
    "negative-requests.yaml:6: descriptors[0].rate_limit.requests_per_unit: expected an unsigned 32-bit integer, got '-5'",
  ],
  'float-requests.yaml': [
    "float-requests.yaml:6: descriptors[0].rate_limit.requests_per_unit: expected an unsigned 32-bit integer, got '1.5'",
  ],
  'bad-boolean.yaml': ["bad-boolean.yaml:4: descriptors[0].shadow_mode: expected true or false, got 'maybe'"],
  'descriptors-not-a-list.yaml': [
    'descriptors-not-a-list.yaml:2: descriptors: expected a list, got a mapping',
  ],
  'not-a-mapping.yaml': ['not-a-mapping.yaml:1: expected a mapping, got a list'],
  'syntax-error.yaml': [
    'syntax-error.yaml:3: invalid YAML: Block collections are not allowed within flow collections',
    'syntax-error.yaml:4: invalid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]',
  ],
  'duplicate-yaml-key.yaml': ['duplicate-yaml-key.yaml:2: invalid YAML: Map keys must be unique'],
  'two-documents.yaml': ['two-documents.yaml: holds 2 YAML documents; one file holds one configuration'],
  'share-threshold-without-wildcard.yaml': [
    "share-threshold-without-wildcard.yaml:5: descriptors[0].share_threshold: share_threshold can only be used with wildcard values (containing '*'), but found key 'files_files/a'",
  ],
  'metadata-not-a-mapping.yaml': [
    'metadata-not-a-mapping.yaml:5: descriptors[0].metadata: error parsing metadata: expected a mapping',
  ],
  'several-problems.yaml': [
    "several-problems.yaml:5: descriptors[0].rate_limit.unit: invalid rate limit unit 'hours' (expected one of second, minute, hour, day, week, month, year)",
    "several-problems.yaml:6: descriptors[0].rate_limit.requests_per_unit: expected an unsigned 32-bit integer, got 'ten'",
    'several-problems.yaml:7: descriptors[1].key: descriptor has empty key',
    "several-problems.yaml:9: descriptors[2].colour: unknown key 'colour'",
  ],
  'empty-file.yaml': ['empty-file.yaml: expected a mapping, got nothing'],
};

function problemsOf(file: string): readonly string[] {
  try {
    parseRateLimitYaml(file, readFileSync(join(testdata, 'invalid', file), 'utf8'));
  } catch (e: unknown) {
    if (e instanceof ConfigError) return e.problems;
    throw e;
  }
  throw new Error(`${file} was accepted`);
}

const FIXED = { algorithm: 'fixed_window', burst: undefined } as const;

describe('parseRateLimitYaml rejects', () => {
  it('has an expectation for every fixture', () => {
    expect(readdirSync(join(testdata, 'invalid')).sort()).toEqual(Object.keys(INVALID).sort());
  });

  it.each(Object.entries(INVALID))('%s', (file, expected) => {
    expect(problemsOf(file)).toEqual(expected);
  });
});

describe('parseRateLimitYaml accepts', () => {
  it('a replaces entry naming no limit, as upstream does; findDanglingReplaces reports it, refuseDanglingReplaces throws', () => {
    const file = 'replaces-nothing.yaml';
    const config = parseRateLimitYaml(file, readFileSync(join(testdata, 'valid', file), 'utf8'));
    const problem =
      "replaces-nothing.yaml: descriptors[0].rate_limit.replaces[0]: replaces 'nobody', but no rate limit in domain 'test' has that name";
    expect(findDanglingReplaces(config)).toEqual([problem]);
    expect(() => refuseDanglingReplaces(config)).toThrow(new ConfigError([problem]));
  });

  it('every field of the format, reading scalars as upstream does', () => {
    const config = parseRateLimitYaml(
      'everything.yaml',
      readFileSync(join(testdata, 'valid/everything.yaml'), 'utf8'),
    );
    expect(config).toEqual({
      source: 'everything.yaml',
      domain: 'everything',
      descriptors: [
        {
          key: 'remote_address',
          value: '',
          rateLimit: {
            unlimited: false,
            unit: 'SECOND',
            requestsPerUnit: 10,
            name: undefined,
            replaces: [],
            ...FIXED,
          },
          shadowMode: false,
          detailedMetric: false,
          quotaMode: false,
          valueToMetric: false,
          shareThreshold: false,
          metadata: undefined,
          moreRateLimits: [],
          descriptors: [],
        },
        {
          key: 'path',
          value: '/login',
          rateLimit: {
            unlimited: false,
            unit: 'MINUTE',
            requestsPerUnit: 5,
            name: 'login',
            replaces: [],
            ...FIXED,
          },
          shadowMode: true,
          detailedMetric: false,
          quotaMode: false,
          valueToMetric: false,
          shareThreshold: false,
          metadata: undefined,
          moreRateLimits: [],
          descriptors: [],
        },
        {
          key: 'path',
          value: '010',
          rateLimit: undefined,
          shadowMode: false,
          detailedMetric: true,
          quotaMode: false,
          valueToMetric: false,
          shareThreshold: false,
          metadata: undefined,
          moreRateLimits: [],
          descriptors: [],
        },
        {
          key: 'tier',
          value: 'gold',
          rateLimit: {
            unlimited: false,
            unit: 'HOUR',
            requestsPerUnit: 1000,
            name: undefined,
            replaces: ['login'],
            ...FIXED,
          },
          shadowMode: false,
          detailedMetric: false,
          quotaMode: false,
          valueToMetric: false,
          shareThreshold: false,
          metadata: undefined,
          moreRateLimits: [],
          descriptors: [
            {
              key: 'user',
              value: '',
              rateLimit: { unlimited: true, name: undefined, replaces: [] },
              shadowMode: false,
              detailedMetric: false,
              quotaMode: false,
              valueToMetric: false,
              shareThreshold: false,
              metadata: undefined,
              moreRateLimits: [],
              descriptors: [],
            },
            {
              key: 'internal',
              value: 'on',
              rateLimit: undefined,
              shadowMode: false,
              detailedMetric: false,
              quotaMode: false,
              valueToMetric: false,
              shareThreshold: false,
              metadata: undefined,
              moreRateLimits: [],
              descriptors: [],
            },
          ],
        },
        {
          key: 'blocked',
          value: '',
          rateLimit: {
            unlimited: false,
            unit: 'DAY',
            requestsPerUnit: 0,
            name: undefined,
            replaces: [],
            ...FIXED,
          },
          shadowMode: false,
          detailedMetric: false,
          quotaMode: false,
          valueToMetric: false,
          shareThreshold: false,
          metadata: undefined,
          moreRateLimits: [],
          descriptors: [],
        },
        {
          key: 'weekly',
          value: '',
          rateLimit: {
            unlimited: false,
            unit: 'WEEK',
            requestsPerUnit: 7,
            name: undefined,
            replaces: [],
            ...FIXED,
          },
          shadowMode: false,
          detailedMetric: false,
          quotaMode: false,
          valueToMetric: false,
          shareThreshold: false,
          metadata: undefined,
          moreRateLimits: [],
          descriptors: [],
        },
        {
          key: 'placeholder',
          value: '',
          rateLimit: undefined,
          shadowMode: false,
          detailedMetric: false,
          quotaMode: false,
          valueToMetric: false,
          shareThreshold: false,
          metadata: undefined,
          moreRateLimits: [],
          descriptors: [],
        },
      ],
    });
  });

  it("upstream's newer per-rule fields, metadata values typed as a Struct holds them", () => {
    const config = parseRateLimitYaml(
      'newer-fields.yaml',
      readFileSync(join(testdata, 'valid/newer-fields.yaml'), 'utf8'),
    );
    expect(config.descriptors[0]).toMatchObject({
      value: 'files/*',
      shareThreshold: true,
      quotaMode: true,
      valueToMetric: false,
      metadata: undefined,
    });
    expect(config.descriptors[1]).toMatchObject({
      valueToMetric: true,
      shareThreshold: false,
      quotaMode: false,
    });
    expect(config.descriptors[1]?.metadata).toEqual({
      service: 'a',
      weight: 5,
      ratio: 0.5,
      quoted: '5',
      enabled: true,
      none: null,
      nested: { tags: ['x', 1] },
    });
  });

  it('a domain without descriptors', () => {
    expect(parseRateLimitYaml('d.yaml', 'domain: quiet\n')).toEqual({
      source: 'd.yaml',
      domain: 'quiet',
      descriptors: [],
    });
  });

  it('aliases to anchored nodes, as upstream (found by the differential suite: an alias read as no limit)', () => {
    const config = parseRateLimitYaml(
      'alias.yaml',
      'domain: d\ndescriptors:\n  - key: a\n    rate_limit: &shared { unit: minute, requests_per_unit: 7 }\n  - key: b\n    rate_limit: *shared\n',
    );
    expect(config.descriptors.map((d) => d.rateLimit)).toEqual([
      expect.objectContaining({ unit: 'MINUTE', requestsPerUnit: 7 }),
      expect.objectContaining({ unit: 'MINUTE', requestsPerUnit: 7 }),
    ]);
  });

  it("merge keys, as upstream: the mapping's own keys win, then earlier merged mappings", () => {
    const config = parseRateLimitYaml(
      'merge.yaml',
      [
        'domain: d',
        'descriptors:',
        '  - key: a',
        '    rate_limit: &minute { unit: minute, requests_per_unit: 7 }',
        '  - key: b',
        '    rate_limit: &named { name: base, unit: hour, requests_per_unit: 9 }',
        '  - key: c',
        '    rate_limit:',
        '      <<: [*minute, *named]',
        '      requests_per_unit: 1',
      ].join('\n'),
    );
    expect(config.descriptors[2]?.rateLimit).toMatchObject({
      unit: 'MINUTE',
      requestsPerUnit: 1,
      name: 'base',
    });
    expect(() => parseRateLimitYaml('bad-merge.yaml', 'domain: d\n<<: [x]\n')).toThrow(
      new ConfigError(["bad-merge.yaml: YAML merge key '<<' takes a mapping or a list of mappings"]),
    );
  });

  it('refuses a recursive alias and a "billion laughs" of aliases', () => {
    expect(() =>
      parseRateLimitYaml('loop.yaml', 'domain: d\ndescriptors: &l\n  - key: a\n    descriptors: *l\n'),
    ).toThrow(new ConfigError(['loop.yaml: YAML alias *l expands recursively or too many times']));
    const laughs = ['domain: d', 'l0: &l0 [a, a, a, a, a, a, a, a, a, a]'];
    for (let i = 1; i < 8; i++)
      laughs.push(`l${i}: &l${i} [${Array.from({ length: 10 }, () => `*l${i - 1}`).join(', ')}]`);
    expect(() => parseRateLimitYaml('laughs.yaml', laughs.join('\n'))).toThrow(
      new ConfigError(['laughs.yaml: YAML alias *l0 expands recursively or too many times']),
    );
  });
});
