import type { DescriptorEntry, DescriptorStatus } from './types.js';

/** The IETF draft's names, and the ratelimit service's defaults (`LIMIT_*_HEADER`). */
export const LIMIT_HEADER_NAMES = {
  limit: 'RateLimit-Limit',
  remaining: 'RateLimit-Remaining',
  reset: 'RateLimit-Reset',
} as const;

const NAMES: ReadonlySet<string> = new Set(Object.values(LIMIT_HEADER_NAMES).map((n) => n.toLowerCase()));

/**
 * The status that constrains the caller most, among those with a limit: one over its limit before one
 * under it, then the fewest remaining, then the longest until reset (the longest a caller must wait).
 */
export function pickMostRestrictive(statuses: readonly DescriptorStatus[]): DescriptorStatus | undefined {
  let pick: DescriptorStatus | undefined;
  const rank = (s: DescriptorStatus): [number, number, number] => [
    s.code === 'OVER_LIMIT' ? 0 : 1,
    s.limitRemaining ?? 0,
    -(s.durationUntilResetSeconds ?? 0),
  ];
  for (const s of statuses) {
    if (s.requestsPerUnit === undefined) continue;
    if (!pick || isBefore(rank(s), rank(pick))) pick = s;
  }
  return pick;
}

function isBefore(a: readonly number[], b: readonly number[]): boolean {
  for (let i = 0; i < a.length; i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    if (x !== y) return x < y;
  }
  return false;
}

/**
 * `headers` plus `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` (whole seconds, rounded up)
 * of the most restrictive status, unless the service already sent any of the three (compared without case)
 * or no status carries a limit. A service configured with other header names gets both sets.
 */
export function addLimitHeaders(
  headers: readonly DescriptorEntry[],
  statuses: readonly DescriptorStatus[],
): DescriptorEntry[] {
  const out = [...headers];
  if (headers.some((h) => NAMES.has(h.key.toLowerCase()))) return out;
  const pick = pickMostRestrictive(statuses);
  if (!pick) return out;
  out.push(
    { key: LIMIT_HEADER_NAMES.limit, value: String(pick.requestsPerUnit ?? 0) },
    { key: LIMIT_HEADER_NAMES.remaining, value: String(pick.limitRemaining ?? 0) },
    { key: LIMIT_HEADER_NAMES.reset, value: String(Math.ceil(pick.durationUntilResetSeconds ?? 0)) },
  );
  return out;
}

/** `Retry-After` for a refused call: the seconds of its `RateLimit-Reset` header, when it has one. */
export function retryAfter(headers: readonly DescriptorEntry[]): string | undefined {
  const reset = headers.find((h) => h.key.toLowerCase() === LIMIT_HEADER_NAMES.reset.toLowerCase());
  return reset && /^\d+$/.test(reset.value) ? reset.value : undefined;
}
