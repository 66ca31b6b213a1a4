import { randomBytes } from 'node:crypto';
import { InvalidArgumentError } from '@portcullis/kit';

const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

/** 256 random bits, base64url: 43 characters. */
export function createSessionId(): string {
  return randomBytes(32).toString('base64url');
}

/** Whether `id` could be one of ours; anything else is refused before it reaches a store key. */
export function isSessionId(id: string): boolean {
  return SESSION_ID.test(id);
}

/** Throws `InvalidArgumentError` unless `ttlSeconds` is a positive finite number. */
export function toTtlMs(ttlSeconds: number): number {
  if (!Number.isFinite(ttlSeconds) || ttlSeconds <= 0) {
    throw new InvalidArgumentError(`session ttlSeconds must be a positive number, got ${ttlSeconds}`);
  }
  return Math.max(1, Math.round(ttlSeconds * 1000));
}
