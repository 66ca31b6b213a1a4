/** How long a fetched key set may be used without asking again, in ms, bounded. */
export interface FreshnessBounds {
  minMs: number;
  maxMs: number;
}

/**
 * The freshness lifetime of a JWKS response as a private cache reckons it (RFC 9111 §4.2.1): `max-age`
 * less `Age`, held within the bounds. `no-store`, `no-cache`, no `max-age` or one that does not parse
 * give the minimum: the provider did not say, so we ask again as soon as we allow ourselves to.
 */
export function jwksFreshnessMs(
  headers: { cacheControl: string | null; age: string | null },
  bounds: FreshnessBounds,
): number {
  const directives = (headers.cacheControl ?? '')
    .toLowerCase()
    .split(',')
    .map((d) => d.trim());
  if (directives.includes('no-store') || directives.includes('no-cache')) return bounds.minMs;
  const maxAge = directives.find((d) => d.startsWith('max-age='))?.slice('max-age='.length);
  if (maxAge === undefined || !/^\d+$/.test(maxAge)) return bounds.minMs;
  const age = /^\d+$/.test(headers.age ?? '') ? Number(headers.age) : 0;
  const ms = Math.max(0, Number(maxAge) - age) * 1000;
  return Math.min(bounds.maxMs, Math.max(bounds.minMs, ms));
}
