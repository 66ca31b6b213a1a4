import type { Logger } from '@portcullis/kit';
import {
  createLocalLimiter,
  createRateLimitClientFromSettings,
  signInFallbackRules,
  type RateLimitClient,
} from '@portcullis/ratelimit-client';
import { Counter, type Registry } from 'prom-client';
import type { Settings } from './settings.js';

/**
 * The client of the ratelimit service (`GATEWAY_RATELIMIT_*`), with the in-process sign-in limits
 * (`GATEWAY_FALLBACK_*`) answering when there is no service or a call fails in failure mode `allow`; the
 * fallback's evictions are counted on `registry`.
 */
export function createGatewayRateLimitClient(
  settings: Readonly<Settings>,
  deps: { log: Logger; registry: Registry; now?: () => number },
): RateLimitClient {
  const { ratelimit } = settings;
  const fallback = createLocalLimiter({
    rules: signInFallbackRules(ratelimit.authDomain, {
      perAddress: ratelimit.fallback.signInPerAddressPerMinute,
      perUsername: ratelimit.fallback.signInPerUsernamePerMinute,
    }),
    maxKeys: ratelimit.fallback.maxKeys,
    ...(deps.now ? { now: deps.now } : {}),
  });
  new Counter({
    name: 'portcullis_gateway_fallback_limiter_evictions_total',
    help: 'Sign-in counters the in-process fallback limiter dropped before their window ended, GATEWAY_FALLBACK_MAX_KEYS being reached.',
    registers: [deps.registry],
    collect() {
      this.reset();
      this.inc(fallback.stats().evictions);
    },
  });
  return createRateLimitClientFromSettings(ratelimit, {
    fallback,
    log: deps.log,
    xds: { serverUri: ratelimit.xdsServerUri, nodeId: settings.xds.nodeId },
  });
}
