import type { Entry } from '../types.js';

/** Start of the fixed window holding `nowSec`. Windows align to the epoch, as upstream: replicas agree without coordination. */
export function windowStart(nowSec: number, unitSeconds: number): number {
  return Math.floor(nowSec / unitSeconds) * unitSeconds;
}

/** `<prefix><domain>_<key>_<value>_…`: what every key of a descriptor starts with. */
export function keyBase(prefixedDomain: string, entries: readonly Entry[]): string {
  let key = `${prefixedDomain}_`;
  for (const e of entries) key += `${e.key}_${e.value}_`;
  return key;
}

/**
 * Upstream's counter key, `<prefix><domain>_<key>_<value>_…<window start>`, so a Redis shared with Envoy's
 * ratelimit service sees the same counters. `prefixedDomain` is `CACHE_KEY_PREFIX` followed by the domain.
 */
export function cacheKey(prefixedDomain: string, entries: readonly Entry[], windowStartSec: number): string {
  return keyBase(prefixedDomain, entries) + String(windowStartSec);
}
