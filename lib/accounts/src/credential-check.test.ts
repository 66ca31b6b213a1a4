import { describe, expect, it } from 'vitest';
import { checkPassword } from './credential-check.js';
import { createScryptHasher, type PasswordHasher } from './password-hasher.js';

const current = createScryptHasher({ ln: 10 });

/** The real hasher, counting the key derivations it runs. */
function counted(hasher: PasswordHasher) {
  let derivations = 0;
  return {
    hasher: {
      hash: (password: string) => (derivations++, hasher.hash(password)),
      verify: (password: string, stored: string) => (derivations++, hasher.verify(password, stored)),
      needsRehash: (stored: string) => hasher.needsRehash(stored),
    } satisfies PasswordHasher,
    derivations: () => derivations,
  };
}

describe('checkPassword', () => {
  it('accepts the right password and asks for no re-hash under current parameters', async () => {
    const stored = await current.hash('correct horse');
    expect(await checkPassword(current, 'correct horse', stored)).toEqual({ ok: true, rehash: undefined });
  });

  it('refuses a wrong password', async () => {
    const stored = await current.hash('correct horse');
    expect(await checkPassword(current, 'wrong horse', stored)).toEqual({ ok: false, rehash: undefined });
  });

  it('hands back a hash under current parameters when the stored one is outdated', async () => {
    const stored = await createScryptHasher({ ln: 11 }).hash('correct horse');
    const { ok, rehash } = await checkPassword(current, 'correct horse', stored);
    expect(ok).toBe(true);
    expect(rehash).toMatch(/^\$scrypt\$ln=10,/);
    expect(rehash && (await current.verify('correct horse', rehash))).toBe(true);
  });

  it('runs one key derivation for an unknown user too, and refuses', async () => {
    const unknown = counted(current);
    expect(await checkPassword(unknown.hasher, 'correct horse', undefined)).toEqual({
      ok: false,
      rehash: undefined,
    });
    expect(unknown.derivations()).toBe(1);
    const known = counted(current);
    await checkPassword(known.hasher, 'correct horse', await current.hash('correct horse'));
    expect(known.derivations()).toBe(1);
  });
});
