import { randomBytes } from 'node:crypto';
import { hashToken } from '@portcullis/kit';
import type { ApiKeyInfo, NewApiKey } from './app-types.js';

/** Keys start with it, so a leaked one is recognisable (secret scanners) and a typo is not mistaken for one. */
export const API_KEY_PREFIX = 'pck_';

/** A new key: 32 random bytes, base64url, after the prefix; stores keep its `hashToken`, no slow hash needed. */
export function generateApiKey(): string {
  return `${API_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
}

/** A record's time as the stores keep and show it: ISO 8601 UTC, from milliseconds. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

export function newRecordId(): string {
  return randomBytes(12).toString('base64url');
}

/** A new key of `appId`, with the hash the stores keep and the record they show; `now` in milliseconds. */
export function newApiKey(
  appId: string,
  input: NewApiKey,
  now: number,
): { key: string; hash: string; info: ApiKeyInfo } {
  const key = generateApiKey();
  return {
    key,
    hash: hashToken(key),
    info: {
      id: newRecordId(),
      appId,
      name: input.name,
      createdAt: isoTime(now),
      ...(input.expiresAt ? { expiresAt: input.expiresAt } : {}),
    },
  };
}
