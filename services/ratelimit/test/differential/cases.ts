// Hand cases for the differential suite: a rule set per case (its own domain) and the requests sent to both
// services in order. Each case runs twice, over gRPC and over `/json`, in two domains of the same rules.

export interface Case {
  name: string;
  /** The YAML of the case's descriptors (indented under `descriptors:`). */
  descriptors: string;
  /** Requests without their domain, in proto3 JSON (camelCase; 64-bit integers as numbers). */
  requests: object[];
}

const d = (...entries: Array<[string, string]>): { entries: Array<{ key: string; value: string }> } => ({
  entries: entries.map(([key, value]) => ({ key, value })),
});
const times = <T>(n: number, x: T): T[] => Array.from({ length: n }, () => x);
const one = (...descriptors: object[]): object => ({ descriptors });

export const CASES: Case[] = [
  {
    name: 'exact-then-key-only',
    descriptors: `
  - key: k
    rate_limit: { unit: hour, requests_per_unit: 3 }
  - key: k
    value: v
    rate_limit: { unit: hour, requests_per_unit: 1 }
  - key: case
    value: Abc
    rate_limit: { unit: day, requests_per_unit: 1 }`,
    requests: [
      ...times(2, one(d(['k', 'v']))),
      ...times(4, one(d(['k', 'x']))),
      one(d(['k', 'y'])),
      one(d(['k', ''])),
      ...times(2, one(d(['case', 'abc']))),
      ...times(2, one(d(['case', 'Abc']))),
      one(d(['K', 'v'])),
    ],
  },
  {
    name: 'depth',
    descriptors: `
  - key: a
    descriptors:
      - key: b
        rate_limit: { unit: minute, requests_per_unit: 2 }
        descriptors:
          - key: c
            value: x
            rate_limit: { unit: hour, requests_per_unit: 1 }`,
    requests: [
      ...times(3, one(d(['a', '1'], ['b', '2']))),
      one(d(['a', '1'])),
      ...times(2, one(d(['a', '1'], ['b', '2'], ['c', 'x']))),
      one(d(['a', '1'], ['b', '2'], ['c', 'y'])),
      one(d(['b', '2'], ['a', '1'])),
      one(d(['a', '1'], ['b', '2'], ['c', 'x'], ['d', '4'])),
    ],
  },
  {
    name: 'whitelist-unlimited-zero',
    descriptors: `
  - key: white
  - key: unl
    rate_limit: { unlimited: true }
  - key: zero
    rate_limit: { unit: hour, requests_per_unit: 0 }
  - key: k
    rate_limit: { unit: hour, requests_per_unit: 1 }`,
    requests: [
      one(d(['white', '1'])),
      ...times(2, one(d(['unl', '1']))),
      ...times(2, one(d(['zero', '1']))),
      ...times(2, one(d(['k', '1']), d(['unl', '1']), d(['white', '2']), d(['nope', '3']))),
    ],
  },
  {
    name: 'several-descriptors',
    descriptors: `
  - key: a
    rate_limit: { unit: hour, requests_per_unit: 2 }
  - key: b
    rate_limit: { unit: minute, requests_per_unit: 3 }`,
    requests: times(4, one(d(['a', '1']), d(['b', '1']), d(['a', '2']))),
  },
  {
    name: 'replaces',
    descriptors: `
  - key: a
    rate_limit: { name: base, unit: hour, requests_per_unit: 4 }
  - key: b
    rate_limit: { unit: hour, requests_per_unit: 1, replaces: [{ name: base }] }
  - key: c
    rate_limit: { name: other, unit: hour, requests_per_unit: 2 }`,
    requests: [
      ...times(2, one(d(['a', '1']), d(['b', '1']))),
      ...times(2, one(d(['a', '1']))),
      ...times(3, one(d(['c', '1']), d(['a', '2']))),
    ],
  },
  {
    name: 'shadow-per-rule',
    descriptors: `
  - key: s
    shadow_mode: true
    rate_limit: { unit: hour, requests_per_unit: 1 }
  - key: h
    rate_limit: { unit: hour, requests_per_unit: 1 }`,
    requests: [...times(3, one(d(['s', '1']))), ...times(2, one(d(['s', '2']), d(['h', '2'])))],
  },
  {
    // trailing `*` only: the peer (3fb7025) predates wildcards inside a value (peer-differences.test.ts)
    name: 'wildcards',
    descriptors: `
  - key: path
    value: /api/o*
    rate_limit: { unit: hour, requests_per_unit: 1 }
  - key: path
    value: /api/*
    rate_limit: { unit: hour, requests_per_unit: 2 }
  - key: path
    value: /api/one/x
    rate_limit: { unit: hour, requests_per_unit: 5 }
  - key: path
    rate_limit: { unit: hour, requests_per_unit: 3 }
  - key: files
    value: f*
    share_threshold: true
    rate_limit: { unit: hour, requests_per_unit: 2 }`,
    requests: [
      ...times(2, one(d(['path', '/api/one']))),
      ...times(2, one(d(['path', '/api/other']))),
      ...times(3, one(d(['path', '/api/three']))),
      ...times(2, one(d(['path', '/api/one/x']))),
      ...times(2, one(d(['path', '/other']))),
      one(d(['path', '/api/'])),
      one(d(['path', '/api'])),
      one(d(['files', 'f1'])),
      one(d(['files', 'f2'])),
      one(d(['files', 'f3'])),
      one(d(['files', 'g1'])),
    ],
  },
  {
    name: 'metric-names',
    descriptors: `
  - key: vm
    value_to_metric: true
    descriptors:
      - key: id
        rate_limit: { unit: hour, requests_per_unit: 1 }
  - key: dm
    detailed_metric: true
    rate_limit: { unit: hour, requests_per_unit: 1 }
  - key: both
    value: b*
    value_to_metric: true
    rate_limit: { unit: hour, requests_per_unit: 1 }`,
    requests: [
      ...times(2, one(d(['vm', 'alpha'], ['id', '7']))),
      one(d(['vm', ''], ['id', '8'])),
      ...times(2, one(d(['dm', 'alice']))),
      one(d(['dm', 'bob'])),
      ...times(2, one(d(['both', 'bee']))),
    ],
  },
  {
    name: 'hits-addend',
    descriptors: `
  - key: k
    rate_limit: { unit: hour, requests_per_unit: 10 }`,
    requests: [
      { hitsAddend: 4, ...one(d(['k', 'r'])) },
      { hitsAddend: 0, ...one(d(['k', 'r'])) },
      { hitsAddend: 6, ...one(d(['k', 'r'])) },
      { hitsAddend: 1, ...one(d(['k', 'r'])) },
      one({ ...d(['k', 'p']), hitsAddend: 0 }),
      one({ ...d(['k', 'p']), hitsAddend: 9 }),
      { hitsAddend: 5, ...one({ ...d(['k', 'p']), hitsAddend: 1 }) },
      one({ ...d(['k', 'p']), hitsAddend: 0 }),
      { hitsAddend: 11, ...one(d(['k', 'q'])) },
    ],
  },
  {
    name: 'overrides',
    descriptors: `
  - key: k
    rate_limit: { unit: hour, requests_per_unit: 1 }`,
    requests: [
      // WEEK by its number: envoy.type.v3.RateLimitUnit, the override's type, has no name for it
      ...['MINUTE', 'HOUR', 'DAY', 7, 'MONTH', 'YEAR'].flatMap((unit) =>
        times(3, one({ ...d(['k', String(unit)]), limit: { requestsPerUnit: 2, unit } })),
      ),
      ...times(2, one({ ...d(['k', 'shared']), limit: { requestsPerUnit: 3, unit: 'HOUR' } })),
      one(d(['k', 'shared'])),
      ...times(2, one({ ...d(['unmatched', 'x']), limit: { requestsPerUnit: 1, unit: 'DAY' } })),
    ],
  },
  {
    name: 'near-limit',
    descriptors: `
  - key: k
    rate_limit: { unit: hour, requests_per_unit: 10 }`,
    requests: times(12, one(d(['k', 'n']))),
  },
];

/** The file of one case in one domain. */
export function caseFile(domain: string, c: Case): string {
  return `domain: ${domain}\ndescriptors:${c.descriptors}\n`;
}
