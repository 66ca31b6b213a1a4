import { isValidUsername } from './account-rules.js';
import { InvalidArgumentError } from '@portcullis/kit';
import type { ListOptions } from './types.js';

export const DEFAULT_LIST_LIMIT = 50;
export const MAX_LIST_LIMIT = 1000;

export interface ListWindow {
  limit: number;
  /** Folded user name the page starts after; undefined for the first page. */
  after: string | undefined;
}

/** Throws `InvalidArgumentError` for a limit outside 1–1000 or a cursor we did not issue. */
export function resolveListOptions(options: ListOptions = {}): ListWindow {
  const limit = options.limit ?? DEFAULT_LIST_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT) {
    throw new InvalidArgumentError(`list limit must be an integer from 1 to ${MAX_LIST_LIMIT}`);
  }
  if (options.cursor === undefined) return { limit, after: undefined };
  const after = Buffer.from(options.cursor, 'base64url').toString();
  if (
    !isValidUsername(after) ||
    after !== after.toLowerCase() ||
    encodeListCursor(after) !== options.cursor
  ) {
    throw new InvalidArgumentError('list cursor is not one this store issued');
  }
  return { limit, after };
}

/** The cursor of the page after the one ending with this folded user name; opaque to callers. */
export function encodeListCursor(lastFoldedUsername: string): string {
  return Buffer.from(lastFoldedUsername).toString('base64url');
}
