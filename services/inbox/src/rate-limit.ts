import type { FastifyReply } from 'fastify';
import type { Logger } from '@portcullis/kit';
import {
  createLocalLimiter,
  createRateLimitClientFromSettings,
  enforceRateLimit,
  signInDescriptors,
  signInFallbackRules,
  type DescriptorEntry,
  type LocalLimitRule,
  RateLimitedError,
  RateLimitUnavailableError,
} from '@portcullis/ratelimit-client';
import type { Settings } from './settings.js';

/** What the inbox asks the ratelimit service about, as descriptors of domain `inbox`. */
export type InboxLimit =
  | { action: 'create_endpoint'; remoteAddress: string }
  | { action: 'capture'; endpointId: string }
  | { action: 'replay'; endpointId: string }
  | { action: 'sign_up'; remoteAddress: string }
  | { action: 'sign_in'; remoteAddress: string; username: string };

export interface InboxRateLimiter {
  /**
   * Asks the service about one action and sets the `RateLimit-*` headers it answered on `reply`.
   * @throws RateLimitedError when over the limit; RateLimitUnavailableError when the service cannot be
   * asked and the failure mode is `deny`.
   */
  enforce(limit: InboxLimit, reply: FastifyReply): Promise<void>;
  /** Counters the fallback limiter dropped before their window ended (`INBOX_FALLBACK_MAX_KEYS`). */
  fallbackEvictions(): number;
  close(): void;
}

/**
 * Without `INBOX_RATELIMIT_URL` (local mode), and when a call fails with failure mode `allow`, the
 * in-process fallback limits (`INBOX_FALLBACK_*`) answer instead of the service.
 */
export function createInboxRateLimiter(
  s: Readonly<Settings>['ratelimit'],
  deps: { log: Logger; now?: () => number },
): InboxRateLimiter {
  const fallback = createLocalLimiter({
    rules: fallbackRules(s),
    maxKeys: s.fallback.maxKeys,
    ...(deps.now ? { now: deps.now } : {}),
  });
  const client = createRateLimitClientFromSettings(s, { fallback, log: deps.log });
  return {
    async enforce(limit, reply) {
      const { outcome, headers } = await enforceRateLimit(client, {
        domain: s.domain,
        descriptors: toDescriptors(limit),
      });
      if (outcome === 'limited') throw new RateLimitedError(headers);
      // failure mode deny: the service could not be asked, which is not the caller's doing
      if (outcome === 'unavailable') throw new RateLimitUnavailableError();
      void reply.headers(headers);
    },
    fallbackEvictions: () => fallback.stats().evictions,
    close: () => client.close(),
  };
}

/** The descriptors of one action; over the limit when any one is. */
export function toDescriptors(limit: InboxLimit): DescriptorEntry[][] {
  const action = { key: 'action', value: limit.action };
  switch (limit.action) {
    case 'create_endpoint':
    case 'sign_up':
      return [[action, { key: 'remote_address', value: limit.remoteAddress }]];
    case 'capture':
    case 'replay':
      return [[action, { key: 'endpoint', value: limit.endpointId }]];
    case 'sign_in':
      return signInDescriptors(limit.remoteAddress, limit.username);
    default: {
      const unknown: never = limit;
      return unknown;
    }
  }
}

/** The fallback limits, on the descriptors of `toDescriptors`. */
export function fallbackRules(s: Readonly<Settings>['ratelimit']): LocalLimitRule[] {
  const f = s.fallback;
  const rule = (
    action: InboxLimit['action'],
    key: string,
    limit: Pick<LocalLimitRule, 'requestsPerUnit' | 'unit'>,
  ): LocalLimitRule => ({ domain: s.domain, entries: [{ key: 'action', value: action }, { key }], ...limit });
  return [
    rule('create_endpoint', 'remote_address', { requestsPerUnit: f.createEndpointPerMinute, unit: 'minute' }),
    rule('capture', 'endpoint', { requestsPerUnit: f.capturePerMinute, unit: 'minute' }),
    rule('replay', 'endpoint', { requestsPerUnit: f.replayPerMinute, unit: 'minute' }),
    rule('sign_up', 'remote_address', { requestsPerUnit: f.signUpPerHour, unit: 'hour' }),
    ...signInFallbackRules(s.domain, {
      perAddress: f.signInPerAddressPerMinute,
      perUsername: f.signInPerUsernamePerMinute,
    }),
  ];
}
