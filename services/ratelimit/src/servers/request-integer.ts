import { RequestError } from '../errors.js';

/**
 * The largest `hits_addend` taken (2^53 − 1). Upstream's field is a uint64, but every count here must be
 * exact: the memory backend and the Redis scripts (Lua numbers) add in doubles, and counters come back
 * as JavaScript numbers, so a larger addend would be rounded, or refused by the store as a backend failure.
 */
export const MAX_HITS_ADDEND = Number.MAX_SAFE_INTEGER;

/**
 * An unsigned integer given as a number or a string of digits (the proto3 JSON form of 64-bit integers,
 * and how the gRPC loader hands them over); undefined when unset. Throws a `RequestError` naming `at.path`
 * when the value is not one, or above `at.max`.
 */
export function readUint(v: unknown, at: { path: string; max: number }): number | undefined {
  if (v === undefined || v === null) return undefined;
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : NaN;
  if (Number.isInteger(n) && n >= 0 && n <= at.max) return n;
  throw new RequestError(`${at.path}: expected an unsigned integer ≤ ${at.max}`);
}
