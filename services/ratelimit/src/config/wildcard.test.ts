import { describe, expect, it } from 'vitest';
import { compileWildcard, isWildcard } from './wildcard.js';

const cases: Array<[pattern: string, value: string, matches: boolean]> = [
  ['foo*', 'foo', true],
  ['foo*', 'foobar', true],
  ['foo*', 'xfoo', false],
  ['*bar', 'bar', true],
  ['*bar', 'foobar', true],
  ['*bar', 'barx', false],
  ['/api/*/action', '/api/v1/action', true],
  ['/api/*/action', '/api//action', true],
  ['/api/*/action', '/api/v1/other', false],
  ['a*b*c', 'abc', true],
  ['a*b*c', 'axxbyyc', true],
  ['a*b*c', 'acb', false],
  ['a*b*c', 'ab', false],
  ['a*b*c', 'axxc', false],
  ['a*b*b', 'axb', false],
  ['a*b*c*d', 'axbxcxd', true],
  ['a*b*c*d', 'acbd', false],
  ['ab*ba', 'aba', false],
  ['ab*ba', 'abba', true],
  ['a*bc*bc', 'abcbc', true],
  ['a*bc*bc', 'abc', false],
  ['*', '', true],
  ['*', 'anything', true],
  ['**', 'x', true],
  ['a**b', 'ab', true],
  ['x.y*', 'xzy', false],
  ['(a)*', '(a)b', true],
];

describe('compileWildcard', () => {
  it.each(cases)('%s against %s: %s', (pattern, value, matches) => {
    expect(compileWildcard(pattern)(value)).toBe(matches);
  });

  it('knows a pattern by its *', () => {
    expect(isWildcard('files/*')).toBe(true);
    expect(isWildcard('files')).toBe(false);
  });
});
