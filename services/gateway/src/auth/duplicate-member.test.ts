import { describe, expect, it } from 'vitest';
import { findDuplicateJwsMember, findDuplicateMember } from './duplicate-member.js';

describe('findDuplicateMember', () => {
  it.each([
    ['{"sub":"admin","sub":"alice"}', 'sub'],
    ['{"s\\u0075b":"admin","sub":"alice"}', 'sub'],
    ['{"a":{"b":1,"b":2}}', 'b'],
    ['[{"a":1},{"b":[1,{"c":1,"c":2}]}]', 'c'],
    ['{"x":"a\\"b","x":1}', 'x'],
  ])('finds the name twice in %s', (json, name) => {
    expect(findDuplicateMember(json)).toBe(name);
  });

  it.each([
    '{"sub":"alice","aud":["sub","sub"]}',
    '{"a":{"b":1},"b":{"a":1}}',
    '[{"a":1},{"a":1}]',
    '{"v":"\\"a\\":1,\\"a\\":2"}',
    '"sub"',
    '{}',
  ])('passes %s', (json) => {
    expect(findDuplicateMember(json)).toBeUndefined();
  });

  it('reads the header and the payload of a compact JWS, not the signature', () => {
    const b64 = (text: string): string => Buffer.from(text).toString('base64url');
    expect(findDuplicateJwsMember(`${b64('{"alg":"HS256","alg":"none"}')}.${b64('{}')}.x`)).toBe('alg');
    expect(findDuplicateJwsMember(`${b64('{}')}.${b64('{"exp":1,"exp":2}')}.x`)).toBe('exp');
    expect(findDuplicateJwsMember(`${b64('{}')}.${b64('{}')}.${b64('{"a":1,"a":1}')}`)).toBeUndefined();
  });
});
