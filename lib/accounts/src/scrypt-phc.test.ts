import { describe, expect, it } from 'vitest';
import { PasswordHashError } from './errors.js';
import { formatScryptHash, parseScryptHash } from './scrypt-phc.js';

const salt = Buffer.alloc(16, 1);
const hash = Buffer.alloc(32, 2);

describe('scrypt PHC strings', () => {
  it('formats parameters, salt and hash as unpadded base64, and parses them back', () => {
    const text = formatScryptHash({ params: { ln: 17, r: 8, p: 1 }, salt, hash });
    expect(text).toBe(`$scrypt$ln=17,r=8,p=1$AQEBAQEBAQEBAQEBAQEBAQ$${'AgIC'.repeat(10)}AgI`);
    const parsed = parseScryptHash(text);
    expect(parsed.params).toEqual({ ln: 17, r: 8, p: 1 });
    expect(parsed.salt.equals(salt)).toBe(true);
    expect(parsed.hash.equals(hash)).toBe(true);
  });

  it.each([
    ['another algorithm', '$argon2id$v=19$m=19456,t=2,p=1$AQEBAQEBAQEBAQEBAQEBAQ$AgICAgICAgICAgICAgICAg'],
    ['a missing parameter', '$scrypt$ln=17,r=8$AQEBAQEBAQEBAQEBAQEBAQ$AgICAgICAgICAgICAgICAg'],
    ['parameters out of order', '$scrypt$r=8,ln=17,p=1$AQEBAQEBAQEBAQEBAQEBAQ$AgICAgICAgICAgICAgICAg'],
    ['base64 padding', '$scrypt$ln=17,r=8,p=1$AQEBAQEBAQEBAQEBAQEBAQ==$AgICAgICAgICAgICAgICAg'],
    ['no hash', '$scrypt$ln=17,r=8,p=1$AQEBAQEBAQEBAQEBAQEBAQ'],
    ['an empty string', ''],
  ])('refuses %s as unreadable', (_, text) => {
    expect(() => parseScryptHash(text)).toThrow(
      new PasswordHashError('stored password hash is not in the $scrypt$ln=…,r=…,p=…$…$… form'),
    );
  });

  it('reads parameters and lengths at the limits', () => {
    const text = formatScryptHash({
      params: { ln: 31, r: 1024, p: 1024 },
      salt: Buffer.alloc(64, 1),
      hash: Buffer.alloc(128, 2),
    });
    expect(parseScryptHash(text).params).toEqual({ ln: 31, r: 1024, p: 1024 });
  });

  it.each([
    ['ln=0', formatScryptHash({ params: { ln: 0, r: 8, p: 1 }, salt, hash }), 'ln=0'],
    ['ln=32', formatScryptHash({ params: { ln: 32, r: 8, p: 1 }, salt, hash }), 'ln=32'],
    ['p=0', formatScryptHash({ params: { ln: 10, r: 8, p: 0 }, salt, hash }), 'p=0'],
    [
      'a 4-byte salt',
      formatScryptHash({ params: { ln: 10, r: 8, p: 1 }, salt: salt.subarray(0, 4), hash }),
      'salt length',
    ],
    [
      'an 8-byte hash',
      formatScryptHash({ params: { ln: 10, r: 8, p: 1 }, salt, hash: hash.subarray(0, 8) }),
      'hash length',
    ],
    [
      'r=0 and a 4-byte salt',
      formatScryptHash({ params: { ln: 10, r: 0, p: 1 }, salt: salt.subarray(0, 4), hash }),
      'r=0, salt length',
    ],
  ])('refuses %s as out of range', (_, text, problem) => {
    expect(() => parseScryptHash(text)).toThrow(`stored password hash out of range: ${problem}`);
  });

  it('raises a PasswordHashError with a stable code', () => {
    let caught: unknown;
    try {
      parseScryptHash('nope');
    } catch (err: unknown) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(PasswordHashError);
    expect((caught as PasswordHashError).code).toBe('PASSWORD_HASH_INVALID');
  });
});
