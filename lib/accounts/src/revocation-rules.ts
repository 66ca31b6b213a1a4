import { InvalidArgumentError } from '@portcullis/kit';

const MAX_JTI_CHARS = 256;

/**
 * Milliseconds the entry must live, or 0 when the token has already expired and needs no entry. Throws
 * `InvalidArgumentError` for an empty or overlong `jti` or an expiry that is not a number.
 */
export function toRevocationTtlMs(jti: string, expiresAtSec: number, nowMs: number): number {
  if (jti.length === 0 || jti.length > MAX_JTI_CHARS) {
    throw new InvalidArgumentError(`jti must have 1-${MAX_JTI_CHARS} characters`);
  }
  if (!Number.isFinite(expiresAtSec)) throw new InvalidArgumentError('token expiry must be a number');
  return Math.max(0, Math.ceil(expiresAtSec * 1000 - nowMs));
}
