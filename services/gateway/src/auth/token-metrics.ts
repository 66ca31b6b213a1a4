import { Counter, type Registry } from 'prom-client';
import type { ExpiringCacheStats } from '../expiring-cache.js';
import type { JwksFetchResult } from './jwks-key-set.js';

/** Counts each fetch of an identity provider's JWKS URL: the `onFetch` of `createIdpVerifier`. */
export function createJwksFetchCounter(
  registry: Registry,
): (issuer: string, result: JwksFetchResult) => void {
  const fetches = new Counter({
    name: 'portcullis_gateway_jwks_fetches_total',
    help: "Fetches of an identity provider's JWKS URL, by issuer and result (ok, unreachable, http_error, invalid).",
    labelNames: ['issuer', 'result'],
    registers: [registry],
  });
  return (issuer, result) => fetches.inc({ issuer, result });
}

/** The verified-token cache's hits, misses and evictions, read from its stats at each scrape. */
export function reportTokenCache(registry: Registry, cache: { stats(): ExpiringCacheStats }): void {
  new Counter({
    name: 'portcullis_gateway_token_cache_lookups_total',
    help: 'Bearer tokens looked up in the verified-token cache, by result: hit (not verified again) or miss.',
    labelNames: ['result'],
    registers: [registry],
    collect() {
      const { hits, misses } = cache.stats();
      this.reset();
      this.inc({ result: 'hit' }, hits);
      this.inc({ result: 'miss' }, misses);
    },
  });
  new Counter({
    name: 'portcullis_gateway_token_cache_evictions_total',
    help: 'Verified tokens dropped from the cache before their expiry, GATEWAY_JWT_CACHE_SIZE being reached.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(cache.stats().evictions);
    },
  });
}
