import { parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { describeYamlErrors } from './yaml-problems.js';

const errorsOf = (text: string) => parseAllDocuments(text).flatMap((d) => ('errors' in d ? d.errors : []));

describe('describeYamlErrors', () => {
  it('puts file:line:column first and drops the dangling "column 1:" and the excerpt', () => {
    const text = 'kind: RateLimitConfig\nmetadata: {name: bad, namespace: default\nspec:\n  domain: x\n';
    expect(describeYamlErrors('bad.yaml', errorsOf(text))).toBe(
      'bad.yaml:3:1: Flow map in block collection must be sufficiently indented and end with a }',
    );
  });

  it('lists every error of the file, each at its own position', () => {
    const message = describeYamlErrors('two.yaml', errorsOf('a: [1, 2\nb: "open\n'));
    expect(message.split('; ').length).toBeGreaterThan(1);
    for (const one of message.split('; ')) expect(one).toMatch(/^two\.yaml:\d+:\d+: \S.*[^:]$/);
  });
});
