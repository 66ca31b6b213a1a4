import { describe, expect, it } from 'vitest';
import { cleanTags, createMogrify } from './dogstatsd.js';

// the cases of upstream's src/godogstats/mogrifier_map_test.go
const WILDCARD = {
  key: 'WILDCARD',
  pattern: String.raw`^ratelimit\.service\.rate_limit\.(.*)\.(.*)\.(.*)$`,
  name: 'ratelimit.service.rate_limit.$3',
  tags: [
    ['domain', '$1'],
    ['descriptor', '$2'],
  ] as Array<[string, string]>,
};

describe('createMogrify', () => {
  it("renames with the pattern's groups and adds the tags", () => {
    expect(
      createMogrify([WILDCARD])('ratelimit.service.rate_limit.mongo_cps.database_users.within_limit'),
    ).toEqual({
      name: 'ratelimit.service.rate_limit.within_limit',
      tags: ['domain:mongo_cps', 'descriptor:database_users'],
    });
  });

  it('keeps a placeholder past the last group as written', () => {
    const m = { ...WILDCARD, tags: [['descriptor', '$5']] as Array<[string, string]> };
    expect(createMogrify([m])('ratelimit.service.rate_limit.a.b.c').tags).toEqual(['descriptor:$5']);
  });

  it('sends a name no pattern matches as it is, without tags', () => {
    expect(createMogrify([WILDCARD])('some.unmatched.metric')).toEqual({
      name: 'some.unmatched.metric',
      tags: [],
    });
    expect(createMogrify([])('a.b')).toEqual({ name: 'a.b', tags: [] });
  });

  it('applies the first mogrifier that matches, in USE_DOG_STATSD_MOGRIFIERS order', () => {
    const specific = {
      key: 'SPECIFIC',
      pattern: String.raw`^ratelimit\.service\.rate_limit\.(.*)\.(.*)\.foo$`,
      name: 'custom.foo',
      tags: [['domain', '$1']] as Array<[string, string]>,
    };
    const mogrify = createMogrify([specific, WILDCARD]);
    expect(mogrify('ratelimit.service.rate_limit.mongo_cps.database_users.foo')).toEqual({
      name: 'custom.foo',
      tags: ['domain:mongo_cps'],
    });
    expect(mogrify('ratelimit.service.rate_limit.mongo_cps.database_users.within_limit').name).toBe(
      'ratelimit.service.rate_limit.within_limit',
    );
  });

  it('matches anywhere in the name unless the pattern anchors it, as Go FindStringSubmatch', () => {
    const m = { key: 'X', pattern: String.raw`rate_limit\.(\w+)`, name: 'rl.$1', tags: [] };
    expect(createMogrify([m])('ratelimit.service.rate_limit.d.k.total_hits').name).toBe('rl.d');
  });
});

describe('cleanTags', () => {
  it('sorts by key, drops empty ones and replaces . : | in values as gostats does', () => {
    expect(cleanTags({ zone: 'eu.1', app: 'a:b|c', empty: '' })).toEqual([
      ['app', 'a_b_c'],
      ['zone', 'eu_1'],
    ]);
  });
});
