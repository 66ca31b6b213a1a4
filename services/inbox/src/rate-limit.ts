import type { FastifyReply } from 'fastify';
import type { Logger } from '@portcullis/kit';
import {
  createLocalLimiter,
  createLocalRateLimitClient,
  createRateLimitClient,
  type DescriptorEntry,
  type LocalLimitRule,
  type RateLimitClient,
  RateLimitedError,
  RateLimitUnavailableError,
  retryAfter,
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
  const client: RateLimitClient =
    s.url === ''
      ? createLocalRateLimitClient(fallback)
      : createRateLimitClient({
          target: s.url,
          timeoutMs: s.timeoutMs,
          failureMode: s.failureMode,
          fallback,
          tls: s.tls,
          log: deps.log,
        });
  return {
    async enforce(limit, reply) {
      const decision = await client.decide({
        domain: s.domain,
        descriptors: toDescriptors(limit).map((entries) => ({ entries })),
      });
      if (decision.allowed) {
        for (const h of decision.headers) void reply.header(h.key, h.value);
        return;
      }
      // failure mode deny: the service could not be asked, which is not the caller's doing
      if (decision.failedOpen) throw new RateLimitUnavailableError();
      throw new RateLimitedError(toLimitedHeaders(decision.headers));
    },
    fallbackEvictions: () => fallback.stats().evictions,
    close: () => client.close(),
  };
}

/**
 * The descriptors of one action; over the limit when any one is. Sign-in is counted per client address
 * and per user name (lower-cased, as names are unique regardless of case), so neither many names from one
 * address nor one name from many addresses goes unchecked.
 */
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
      return [
        [action, { key: 'remote_address', value: limit.remoteAddress }],
        [action, { key: 'username', value: limit.username.toLowerCase() }],
      ];
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
    rule('sign_in', 'remote_address', { requestsPerUnit: f.signInPerAddressPerMinute, unit: 'minute' }),
    rule('sign_in', 'username', { requestsPerUnit: f.signInPerUsernamePerMinute, unit: 'minute' }),
  ];
}

/** The service's headers plus `Retry-After`: the seconds until the window resets (`RateLimit-Reset`). */
export function toLimitedHeaders(headers: readonly DescriptorEntry[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of headers) out[h.key] = h.value;
  const after = retryAfter(headers);
  if (after !== undefined) out['retry-after'] = after;
  return out;
}
