import type { FastifyReply } from 'fastify';
import type { Logger } from '@portcullis/kit';
import {
  createRateLimitClient,
  LIMIT_HEADER_NAMES,
  type DescriptorEntry,
  type RateLimitClient,
} from '@portcullis/ratelimit-client';
import { RateLimitedError, RateLimitUnavailableError } from './errors.js';
import type { Settings } from './settings.js';

/** What the inbox asks the ratelimit service about; each becomes one descriptor of domain `inbox`. */
export type InboxLimit =
  { action: 'create_endpoint'; remoteAddress: string } | { action: 'capture'; endpointId: string };

export interface InboxRateLimiter {
  /**
   * Asks the service about one action and sets the `RateLimit-*` headers it answered on `reply`.
   * @throws RateLimitedError when over the limit; RateLimitUnavailableError when the service cannot be
   * asked and the failure mode is `deny`.
   */
  enforce(limit: InboxLimit, reply: FastifyReply): Promise<void>;
  close(): void;
}

/** Without `INBOX_RATELIMIT_URL` (local mode) every request is served and nothing is asked. */
export function createInboxRateLimiter(s: Readonly<Settings>['ratelimit'], log: Logger): InboxRateLimiter {
  if (s.url === '') return { enforce: () => Promise.resolve(), close: () => undefined };
  const client: RateLimitClient = createRateLimitClient({
    target: s.url,
    timeoutMs: s.timeoutMs,
    failureMode: s.failureMode,
    log,
  });
  return {
    async enforce(limit, reply) {
      const decision = await client.decide({
        domain: s.domain,
        descriptors: [{ entries: toEntries(limit) }],
      });
      if (decision.allowed) {
        for (const h of decision.headers) void reply.header(h.key, h.value);
        return;
      }
      // failure mode deny: the service could not be asked, which is not the caller's doing
      if (decision.failedOpen) throw new RateLimitUnavailableError();
      throw new RateLimitedError(toLimitedHeaders(decision.headers));
    },
    close: () => client.close(),
  };
}

export function toEntries(limit: InboxLimit): DescriptorEntry[] {
  switch (limit.action) {
    case 'create_endpoint':
      return [
        { key: 'action', value: limit.action },
        { key: 'remote_address', value: limit.remoteAddress },
      ];
    case 'capture':
      return [
        { key: 'action', value: limit.action },
        { key: 'endpoint', value: limit.endpointId },
      ];
    default: {
      const unknown: never = limit;
      return unknown;
    }
  }
}

/** The service's headers plus `Retry-After`: the seconds until the window resets (`RateLimit-Reset`). */
export function toLimitedHeaders(headers: readonly DescriptorEntry[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of headers) out[h.key] = h.value;
  const reset = headers.find((h) => h.key.toLowerCase() === LIMIT_HEADER_NAMES.reset.toLowerCase());
  if (reset && /^\d+$/.test(reset.value)) out['retry-after'] = reset.value;
  return out;
}
