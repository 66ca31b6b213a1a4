import type { EnvReader } from '@portcullis/kit';

/** What one inbox process holds at most. */
export interface BoundsSettings {
  /** scrypt hashes and verifications at once, and waiting; past both, sign-in and sign-up answer 503. */
  passwordChecks: { maxConcurrent: number; maxQueued: number };
  /** Bounds of the memory store (no `INBOX_REDIS_URL`); past them captures and endpoint creation answer 507. */
  memoryStore: { maxBytes: number; maxEndpoints: number };
}

export function readBoundsSettings(env: EnvReader): BoundsSettings {
  return {
    passwordChecks: {
      maxConcurrent: env.int('INBOX_PASSWORD_CHECKS_MAX_CONCURRENT', { default: 2, min: 1, max: 64 }),
      maxQueued: env.int('INBOX_PASSWORD_CHECKS_MAX_QUEUED', { default: 8, min: 0, max: 10_000 }),
    },
    memoryStore: {
      maxBytes: env.int('INBOX_MEMORY_MAX_BYTES', { default: 256 * 1024 ** 2, min: 1, max: 16 * 1024 ** 3 }),
      maxEndpoints: env.int('INBOX_MEMORY_MAX_ENDPOINTS', { default: 10_000, min: 1, max: 10_000_000 }),
    },
  };
}
