import type { PasswordHasher } from './password-hasher.js';

export interface CredentialCheck {
  ok: boolean;
  /** A fresh hash to store when the password matched under outdated parameters. */
  rehash: string | undefined;
}

/**
 * Checks `password` against a stored hash. With no hash (unknown or invalid user name) the password is
 * hashed anyway and the result dropped, as Django does: one key derivation either way, so the time taken
 * does not tell whether the account exists.
 */
export async function checkPassword(
  hasher: PasswordHasher,
  password: string,
  stored: string | undefined,
): Promise<CredentialCheck> {
  if (stored === undefined) {
    await hasher.hash(password);
    return { ok: false, rehash: undefined };
  }
  if (!(await hasher.verify(password, stored))) return { ok: false, rehash: undefined };
  return { ok: true, rehash: hasher.needsRehash(stored) ? await hasher.hash(password) : undefined };
}
