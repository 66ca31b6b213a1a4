import { describe, expect, it } from 'vitest';
import { ApiError } from './errors.js';
import { matchesFields, matchesLabels, parseFieldSelector, parseLabelSelector } from './selectors.js';
import type { KubeObject } from './types.js';

describe('label selectors', () => {
  const labels = { app: 'rls', tier: 'edge', shard: '3' };
  const cases: [string, boolean][] = [
    ['', true],
    ['app=rls', true],
    ['app==rls,tier=core', false],
    ['tier!=core', true],
    ['missing!=x', true],
    ['tier in (core,edge)', true],
    ['tier notin (edge)', false],
    ['missing notin (edge)', true],
    ['app', true],
    ['!app', false],
    ['shard>2,shard<4', true],
  ];
  it.each(cases)('%s → %s', (selector, expected) => {
    expect(matchesLabels(parseLabelSelector(selector), labels)).toBe(expected);
  });

  it('rejects malformed selectors with 400', () => {
    expect(() => parseLabelSelector('app in rls')).toThrow(ApiError);
    expect(() => parseLabelSelector('a=b=c')).toThrow('unable to parse requirement');
  });
});

describe('field selectors', () => {
  const obj: KubeObject = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'a', namespace: 'ns' },
    type: 'Opaque',
  };

  it('matches metadata fields and declared labels', () => {
    expect(matchesFields(parseFieldSelector('metadata.name=a,metadata.namespace==ns', {}), obj)).toBe(true);
    expect(matchesFields(parseFieldSelector('type!=Opaque', { type: 'type' }), obj)).toBe(false);
  });

  it('refuses undeclared field labels', () => {
    expect(() => parseFieldSelector('spec.x=1', {})).toThrow('field label not supported: spec.x');
  });
});
