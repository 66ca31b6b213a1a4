import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { InvalidArgumentError } from '@portcullis/kit';
import { PasswordHashError } from './errors.js';
import {
  SCRYPT_LIMITS,
  describeOutOfRange,
  formatScryptHash,
  parseScryptHash,
  type ScryptParams,
} from './scrypt-phc.js';

/** Turns passwords into stored strings and checks them; the stores take any implementation. */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  /** Throws `PasswordHashError` when `stored` is unreadable: a corrupt record, not a wrong password. */
  verify(password: string, stored: string): Promise<boolean>;
  /** True when `stored` was made with other parameters (or is unreadable) and should be replaced. */
  needsRehash(stored: string): boolean;
}

export interface ScryptHasherOptions extends Partial<ScryptParams> {
  /** 16 by default. */
  saltBytes?: number;
  /** 32 by default. */
  keyBytes?: number;
  /** Node's memory cap for one derivation; 256 MiB by default (its own default, 32 MiB, refuses ln=17). */
  maxmemBytes?: number;
}

const MiB = 1024 * 1024;

/**
 * OWASP's scrypt minimum, N=2^17, r=8, p=1: about 128 MiB and ~450 ms per hash on two cores (Node 20).
 * Async scrypt runs on the libuv pool (4 threads), so a login burst can hold ~512 MiB at once.
 */
export const DEFAULT_SCRYPT_OPTIONS: Readonly<Required<ScryptHasherOptions>> = Object.freeze({
  ln: 17,
  r: 8,
  p: 1,
  saltBytes: 16,
  keyBytes: 32,
  maxmemBytes: 256 * MiB,
});

/** Memory one derivation needs, as OpenSSL counts it against `maxmem`: 128·r·(N + p + 2) bytes. */
export function scryptMemoryBytes(params: ScryptParams): number {
  return 128 * params.r * (2 ** params.ln + params.p + 2);
}

/** scrypt from node:crypto. Throws `InvalidArgumentError` for parameters out of range or over `maxmemBytes`. */
export function createScryptHasher(options: ScryptHasherOptions = {}): PasswordHasher {
  const o: Required<ScryptHasherOptions> = { ...DEFAULT_SCRYPT_OPTIONS, ...options };
  const params: ScryptParams = { ln: o.ln, r: o.r, p: o.p };
  checkOptions(o);

  const derive = (
    password: string,
    salt: Buffer,
    p: ScryptParams & { keyBytes: number },
  ): Promise<Buffer> => {
    const opts: ScryptOptions = { N: 2 ** p.ln, r: p.r, p: p.p, maxmem: o.maxmemBytes };
    return new Promise((resolve, reject) => {
      scrypt(password.normalize('NFC'), salt, p.keyBytes, opts, (err, key) =>
        err ? reject(err) : resolve(key),
      );
    });
  };

  return {
    async hash(password) {
      const salt = randomBytes(o.saltBytes);
      const hash = await derive(password, salt, { ...params, keyBytes: o.keyBytes });
      return formatScryptHash({ params, salt, hash });
    },
    async verify(password, stored) {
      const parsed = parseScryptHash(stored);
      if (scryptMemoryBytes(parsed.params) > o.maxmemBytes) {
        throw new PasswordHashError('stored password hash needs more memory than maxmemBytes allows');
      }
      const key = await derive(password, parsed.salt, { ...parsed.params, keyBytes: parsed.hash.length });
      return timingSafeEqual(key, parsed.hash);
    },
    needsRehash(stored) {
      let parsed;
      try {
        parsed = parseScryptHash(stored);
      } catch {
        return true;
      }
      const p = parsed.params;
      return (
        p.ln !== params.ln ||
        p.r !== params.r ||
        p.p !== params.p ||
        parsed.salt.length !== o.saltBytes ||
        parsed.hash.length !== o.keyBytes
      );
    },
  };
}

function checkOptions(o: Required<ScryptHasherOptions>): void {
  const problems = describeOutOfRange(o);
  const { saltBytes, hashBytes } = SCRYPT_LIMITS;
  if (!Number.isInteger(o.saltBytes) || o.saltBytes < saltBytes.min || o.saltBytes > saltBytes.max) {
    problems.push(`saltBytes=${o.saltBytes}`);
  }
  if (!Number.isInteger(o.keyBytes) || o.keyBytes < hashBytes.min || o.keyBytes > hashBytes.max) {
    problems.push(`keyBytes=${o.keyBytes}`);
  }
  if (problems.length === 0 && scryptMemoryBytes(o) > o.maxmemBytes) {
    problems.push(`ln=${o.ln},r=${o.r} needs ${scryptMemoryBytes(o)} bytes > maxmemBytes=${o.maxmemBytes}`);
  }
  if (problems.length > 0) throw new InvalidArgumentError(`scrypt hasher: ${problems.join('; ')}`);
}
