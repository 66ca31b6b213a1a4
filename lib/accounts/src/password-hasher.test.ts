import { scryptSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '@portcullis/kit';
import { PasswordHashError } from './errors.js';
import { DEFAULT_SCRYPT_OPTIONS, createScryptHasher, scryptMemoryBytes } from './password-hasher.js';
import { parseScryptHash } from './scrypt-phc.js';

// ln=10 (1 MiB, ~1 ms) keeps the suite fast; one test below runs the production parameters.
const fast = createScryptHasher({ ln: 10 });

describe('scrypt password hasher', () => {
  it('hashes into $scrypt$ln=…,r=…,p=…$<16-byte salt>$<32-byte key> and verifies the password', async () => {
    const stored = await fast.hash('correct horse');
    expect(stored).toMatch(/^\$scrypt\$ln=10,r=8,p=1\$[A-Za-z0-9+/]{22}\$[A-Za-z0-9+/]{43}$/);
    const parsed = parseScryptHash(stored);
    expect(parsed.salt).toHaveLength(16);
    expect(parsed.hash).toHaveLength(32);
    expect(await fast.verify('correct horse', stored)).toBe(true);
  });

  it('stores the scrypt key of the parameters it names, so other scrypt implementations verify it', async () => {
    const parsed = parseScryptHash(await fast.hash('correct horse'));
    const expected = scryptSync('correct horse', parsed.salt, 32, { N: 2 ** 10, r: 8, p: 1 });
    expect(parsed.hash.equals(expected)).toBe(true);
  });

  it('verifies a hash needing exactly maxmemBytes', async () => {
    const exact = createScryptHasher({ ln: 10, maxmemBytes: scryptMemoryBytes({ ln: 10, r: 8, p: 1 }) });
    expect(await exact.verify('correct horse', await exact.hash('correct horse'))).toBe(true);
  });

  it('refuses a wrong password, including one differing only in case or by a trailing space', async () => {
    const stored = await fast.hash('correct horse');
    for (const wrong of ['Correct horse', 'correct horse ', '', 'correct hors']) {
      expect(await fast.verify(wrong, stored)).toBe(false);
    }
  });

  it('salts every hash', async () => {
    expect(await fast.hash('same password')).not.toBe(await fast.hash('same password'));
  });

  it('treats composed and decomposed accents as the same password (NFC)', async () => {
    const stored = await fast.hash('caf\u00e9 au lait');
    expect(await fast.verify('cafe\u0301 au lait', stored)).toBe(true);
  });

  it('verifies hashes made with other parameters, which then need re-hashing', async () => {
    const old = await createScryptHasher({ ln: 11, r: 4, p: 2, keyBytes: 64 }).hash('correct horse');
    expect(await fast.verify('correct horse', old)).toBe(true);
    expect(fast.needsRehash(old)).toBe(true);
    expect(fast.needsRehash(await fast.hash('correct horse'))).toBe(false);
  });

  it.each([
    ['ln', { ln: 11 }],
    ['r', { r: 16 }],
    ['p', { p: 2 }],
    ['keyBytes', { keyBytes: 64 }],
    ['saltBytes', { saltBytes: 32 }],
  ])('needs a re-hash when %s changed', async (_, changed) => {
    const stored = await fast.hash('correct horse');
    expect(createScryptHasher({ ln: 10, ...changed }).needsRehash(stored)).toBe(true);
  });

  it('needs a re-hash for an unreadable hash, and refuses to verify against one', async () => {
    expect(fast.needsRehash('$2y$11$abcdefghijklmnopqrstuv')).toBe(true);
    await expect(fast.verify('x', '$2y$11$abcdefghijklmnopqrstuv')).rejects.toBeInstanceOf(PasswordHashError);
  });

  it('refuses a stored hash needing more memory than maxmemBytes allows', async () => {
    const big = await createScryptHasher({ ln: 12 }).hash('correct horse');
    const small = createScryptHasher({ ln: 10, maxmemBytes: 2 * 1024 * 1024 });
    await expect(small.verify('correct horse', big)).rejects.toThrow(
      new PasswordHashError('stored password hash needs more memory than maxmemBytes allows'),
    );
  });

  it('refuses parameters out of range or over maxmemBytes, naming each', () => {
    expect(() => createScryptHasher({ ln: 0, p: 0, keyBytes: 8 })).toThrow(
      new InvalidArgumentError('scrypt hasher: ln=0; p=0; keyBytes=8'),
    );
    expect(() => createScryptHasher({ ln: 10, saltBytes: 7, keyBytes: 129 })).toThrow(
      new InvalidArgumentError('scrypt hasher: saltBytes=7; keyBytes=129'),
    );
    expect(() => createScryptHasher({ ln: 10, saltBytes: 65 })).toThrow(
      new InvalidArgumentError('scrypt hasher: saltBytes=65'),
    );
    expect(() => createScryptHasher({ ln: 10, saltBytes: 8.5 })).toThrow(
      new InvalidArgumentError('scrypt hasher: saltBytes=8.5'),
    );
    expect(() => createScryptHasher({ ln: 32, maxmemBytes: 1 })).toThrow(
      new InvalidArgumentError('scrypt hasher: ln=32'),
    );
    for (const bounds of [
      { saltBytes: 8, keyBytes: 16 },
      { saltBytes: 64, keyBytes: 128 },
    ]) {
      expect(() => createScryptHasher({ ln: 10, ...bounds })).not.toThrow();
    }
    expect(() => createScryptHasher({ ln: 17, maxmemBytes: 32 * 1024 * 1024 })).toThrow(
      new InvalidArgumentError('scrypt hasher: ln=17,r=8 needs 134220800 bytes > maxmemBytes=33554432'),
    );
  });

  it('defaults to ln=17, r=8, p=1 (~128 MiB), which fits the 256 MiB maxmem', async () => {
    expect(DEFAULT_SCRYPT_OPTIONS).toMatchObject({ ln: 17, r: 8, p: 1, saltBytes: 16, keyBytes: 32 });
    expect(scryptMemoryBytes(DEFAULT_SCRYPT_OPTIONS)).toBe(128 * 8 * (2 ** 17 + 3));
    const production = createScryptHasher();
    const stored = await production.hash('correct horse');
    expect(stored.startsWith('$scrypt$ln=17,r=8,p=1$')).toBe(true);
    expect(await production.verify('correct horse', stored)).toBe(true);
  });
});
