import { PasswordHashError } from './errors.js';

/** scrypt cost: N = 2^ln, block size r, parallelism p. */
export interface ScryptParams {
  ln: number;
  r: number;
  p: number;
}

export interface ScryptHash {
  params: ScryptParams;
  salt: Buffer;
  hash: Buffer;
}

/** Bounds a stored hash must respect; wider than anything we would choose, narrow enough to refuse junk. */
export const SCRYPT_LIMITS = {
  ln: { min: 1, max: 31 },
  r: { min: 1, max: 1024 },
  p: { min: 1, max: 1024 },
  saltBytes: { min: 8, max: 64 },
  hashBytes: { min: 16, max: 128 },
} as const;

const PHC = /^\$scrypt\$ln=(\d{1,2}),r=(\d{1,4}),p=(\d{1,4})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

/**
 * The PHC-like string we store: `$scrypt$ln=17,r=8,p=1$<salt>$<hash>`, salt and hash in standard base64
 * without padding (the PHC string format's B64).
 */
export function formatScryptHash(h: ScryptHash): string {
  const { ln, r, p } = h.params;
  return `$scrypt$ln=${ln},r=${r},p=${p}$${toB64(h.salt)}$${toB64(h.hash)}`;
}

/** Reads a stored hash; throws `PasswordHashError` when it is not one we could have written. */
export function parseScryptHash(stored: string): ScryptHash {
  const m = PHC.exec(stored);
  if (!m) throw new PasswordHashError('stored password hash is not in the $scrypt$ln=…,r=…,p=…$…$… form');
  const [, ln, r, p, salt, hash] = m;
  const parsed: ScryptHash = {
    params: { ln: Number(ln), r: Number(r), p: Number(p) },
    salt: Buffer.from(salt ?? '', 'base64'),
    hash: Buffer.from(hash ?? '', 'base64'),
  };
  const problems = describeOutOfRange(parsed.params);
  if (!isWithin(parsed.salt.length, SCRYPT_LIMITS.saltBytes)) problems.push('salt length');
  if (!isWithin(parsed.hash.length, SCRYPT_LIMITS.hashBytes)) problems.push('hash length');
  if (problems.length > 0) {
    throw new PasswordHashError(`stored password hash out of range: ${problems.join(', ')}`);
  }
  return parsed;
}

/** The names of the parameters outside `SCRYPT_LIMITS` (empty when all are fine). */
export function describeOutOfRange(params: ScryptParams): string[] {
  const problems: string[] = [];
  for (const name of ['ln', 'r', 'p'] as const) {
    if (!Number.isInteger(params[name]) || !isWithin(params[name], SCRYPT_LIMITS[name])) {
      problems.push(`${name}=${params[name]}`);
    }
  }
  return problems;
}

function isWithin(n: number, range: { min: number; max: number }): boolean {
  return n >= range.min && n <= range.max;
}

function toB64(b: Buffer): string {
  return b.toString('base64').replace(/(?<!=)=+$/, '');
}
