import { describe, expect, it } from 'vitest';
import { evaluateJsonPath, parseJsonPath } from './jsonpath.js';

const obj = {
  metadata: { labels: { 'app.kubernetes.io/name': 'rls' } },
  spec: { domain: 'checkout', descriptors: [{ key: 'a' }, { key: 'b' }] },
  status: {
    conditions: [
      { type: 'Accepted', status: 'True' },
      { type: 'Ready', status: 'False' },
    ],
  },
};

describe('printer-column JSONPath', () => {
  const cases: [string, unknown[]][] = [
    ['.spec.domain', ['checkout']],
    ['{.spec.domain}', ['checkout']],
    ['.spec.descriptors[1].key', ['b']],
    ['.spec.descriptors[*].key', ['a', 'b']],
    ['.status.conditions[?(@.type=="Ready")].status', ['False']],
    ['.status.conditions[?(@.type!="Ready")].type', ['Accepted']],
    [".metadata.labels['app.kubernetes.io/name']", ['rls']],
    ['.spec.missing', []],
  ];
  it.each(cases)('%s', (path, expected) => {
    expect(evaluateJsonPath(parseJsonPath(path), obj)).toEqual(expected);
  });

  it('rejects what it does not understand', () => {
    expect(() => parseJsonPath('spec..x')).toThrow();
  });
});
