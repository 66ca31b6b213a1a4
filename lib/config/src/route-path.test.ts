import { describe, expect, it } from 'vitest';
import { compileRoutePath, routePathTemplates, type CompiledRoutePath } from './route-path.js';

function compiled(path: string): CompiledRoutePath {
  const c = compileRoutePath(path);
  if ('problems' in c) throw new Error(c.problems.join('; '));
  return c;
}

describe('compileRoutePath', () => {
  it('matches literal paths exactly, case-sensitively', () => {
    const c = compiled('users/list.json');
    expect(c.isStatic).toBe(true);
    expect(c.regex.test('users/list.json')).toBe(true);
    expect(c.regex.test('users/listxjson')).toBe(false);
    expect(c.regex.test('Users/list.json')).toBe(false);
  });

  it('captures {name} up to the next slash and {name:regex} by its pattern', () => {
    const c = compiled('users/{id:\\d+}/posts/{slug}');
    expect(c.params).toEqual(['id', 'slug']);
    expect('users/42/posts/Hello-World'.match(c.regex)?.slice(1)).toEqual(['42', 'Hello-World']);
    expect(c.regex.test('users/x/posts/a')).toBe(false);
    expect(c.regex.test('users/1/posts/a/b')).toBe(false);
  });

  it('issue 15: lets a regex parameter span any decoded character, line breaks included', () => {
    const c = compiled('files/{rest:.+}');
    for (const rest of ['a\nb', 'a\u2028b', 'a\u0000b'])
      expect(`files/${rest}`.match(c.regex)?.slice(1)).toEqual([rest]);
  });

  it('accepts regexes with braces and nested optional tails', () => {
    const c = compiled('year/{y:\\d{4}}[/{m:\\d{2}}[/{d}]]');
    expect('year/2026'.match(c.regex)?.slice(1)).toEqual(['2026', undefined, undefined]);
    expect('year/2026/11/22'.match(c.regex)?.slice(1)).toEqual(['2026', '11', '22']);
    expect(c.isStatic).toBe(false);
  });

  it.each([
    ['users/{id', ['unclosed "{" at offset 6']],
    ['users/[{id}', ['unclosed "["']],
    ['users[/{id}]/more', ['optional part "[...]" must end the path (at offset 12)']],
    ['a/{x}/{x}', ['parameter "x" appears twice']],
    ['a/{1x}', ['parameter name "1x" is not a valid name']],
    ['a/{x:(\\d+)}', ['parameter "x": capturing groups are not allowed; use (?:...)']],
    [
      'a/{x:[}',
      [
        'parameter "x": invalid regular expression: Invalid regular expression: /[/u: Unterminated character class',
      ],
    ],
    ['a]', ['unbalanced "]" at offset 1']],
  ])('rejects %j', (path, problems) => {
    expect(compileRoutePath(path)).toEqual({ problems });
  });
});

describe('routePathTemplates', () => {
  it('spells one template per optional part, with each parameter and its declared pattern', () => {
    expect(routePathTemplates('users[/{id:\\d{1,9}}[/{field}]]')).toEqual([
      { template: 'users', params: [] },
      { template: 'users/{id}', params: [{ name: 'id', pattern: '\\d{1,9}' }] },
      {
        template: 'users/{id}/{field}',
        params: [
          { name: 'id', pattern: '\\d{1,9}' },
          { name: 'field', pattern: undefined },
        ],
      },
    ]);
  });

  it('keeps literal text around a parameter and an empty template for an optional root', () => {
    expect(routePathTemplates('files/report-{n:[0-9]+}.json')).toEqual([
      { template: 'files/report-{n}.json', params: [{ name: 'n', pattern: '[0-9]+' }] },
    ]);
    expect(routePathTemplates('[{rest:.+}]').map((t) => t.template)).toEqual(['', '{rest}']);
  });
});
