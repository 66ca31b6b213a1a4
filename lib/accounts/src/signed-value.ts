import { createHmac, timingSafeEqual } from 'node:crypto';
import { InvalidArgumentError } from '@portcullis/kit';

/** Shorter keys are refused: a cookie key is a ≥ 256-bit secret (a Kubernetes Secret), never a word. */
export const MIN_SIGNING_KEY_CHARS = 32;

/**
 * `<value>.<HMAC-SHA256 of value, base64url>`, signed with the first key: rotation puts a new key first and
 * keeps the old ones after it until cookies signed with them have expired. Throws `InvalidArgumentError` for
 * an empty key list or a key shorter than `MIN_SIGNING_KEY_CHARS`.
 */
export function signValue(value: string, keys: readonly string[]): string {
  const [first] = checkKeys(keys);
  return `${value}.${macOf(value, first)}`;
}

/**
 * The value when its signature matches any of `keys`, else undefined (tampered, truncated, unsigned or
 * signed with a retired key). Every key is tried and compared in constant time.
 */
export function unsignValue(signed: string, keys: readonly string[]): string | undefined {
  checkKeys(keys);
  const dot = signed.lastIndexOf('.');
  if (dot < 0) return undefined;
  const value = signed.slice(0, dot);
  const given = Buffer.from(signed.slice(dot + 1));
  let matched = false;
  for (const key of keys) {
    const expected = Buffer.from(macOf(value, key));
    // Compared as base64url text rather than decoded bytes: a second spelling of the same MAC never passes.
    const same = given.length === expected.length && timingSafeEqual(given, expected);
    matched = same || matched;
  }
  return matched ? value : undefined;
}

function macOf(value: string, key: string): string {
  return createHmac('sha256', key).update(value).digest('base64url');
}

function checkKeys(keys: readonly string[]): [string, ...string[]] {
  const [first, ...rest] = keys;
  if (first === undefined) throw new InvalidArgumentError('signing keys: none given');
  if (keys.some((k) => k.length < MIN_SIGNING_KEY_CHARS)) {
    throw new InvalidArgumentError(`signing keys: each needs at least ${MIN_SIGNING_KEY_CHARS} characters`);
  }
  return [first, ...rest];
}
