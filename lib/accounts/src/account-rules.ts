import { randomBytes } from 'node:crypto';
import { InvalidUsernameError, WeakPasswordError } from './errors.js';
import type { NewAccount } from './types.js';

const USERNAME = /^[A-Za-z0-9_.@-]{1,64}$/;
export const MIN_PASSWORD_CHARS = 8;
const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

export function isValidUsername(username: string): boolean {
  return USERNAME.test(username);
}

/** The form uniqueness and look-ups use: names differing only in case are one name. */
export function foldUsername(username: string): string {
  return username.toLowerCase();
}

/** Throws `InvalidUsernameError` or `WeakPasswordError`; returns the folded user name. */
export function checkNewAccount(input: NewAccount): string {
  if (!isValidUsername(input.username)) throw new InvalidUsernameError();
  if (countCharacters(input.password) < MIN_PASSWORD_CHARS) throw new WeakPasswordError(MIN_PASSWORD_CHARS);
  return foldUsername(input.username);
}

/** Characters as a reader counts them (grapheme clusters): an emoji or an accented letter is one. */
function countCharacters(text: string): number {
  let n = 0;
  for (const _ of graphemes.segment(text)) n++;
  return n;
}

/** 128 random bits, base64url: 22 characters. */
export function createAccountId(): string {
  return randomBytes(16).toString('base64url');
}

/** Whether `id` could be one of ours; anything else is refused before it reaches a store key. */
export function isAccountId(id: string): boolean {
  return /^[A-Za-z0-9_-]{22}$/.test(id);
}
