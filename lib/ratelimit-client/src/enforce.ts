import { retryAfter } from './limit-headers.js';
import type { Decision, DescriptorEntry, RateLimitClient } from './types.js';

/**
 * How a service answers a request it asked about. `headers` are the `RateLimit-*` headers the answer
 * carries, whatever the outcome:
 * - `allowed`: go on, with `headers` on the answer;
 * - `limited`: over a limit, refuse with 429; `headers` include `Retry-After` (the seconds of
 *   `RateLimit-Reset`) when the service sent one;
 * - `unavailable`: the service could not be asked and the failure mode is `deny`, refuse with 503 (not the
 *   caller's doing).
 */
export interface Enforcement {
  outcome: 'allowed' | 'limited' | 'unavailable';
  headers: Record<string, string>;
}

/**
 * Asks `client` about `descriptors` of `domain` (over the limit when any one is). The failure mode is the
 * client's own: `allow` answers `allowed` (or the fallback limiter's decision), `deny` answers `unavailable`.
 * @throws RateLimitClientClosedError after the client's `close()`.
 */
export async function enforceRateLimit(
  client: RateLimitClient,
  request: { domain: string; descriptors: readonly DescriptorEntry[][] },
): Promise<Enforcement> {
  const decision = await client.decide({
    domain: request.domain,
    descriptors: request.descriptors.map((entries) => ({ entries })),
  });
  return toEnforcement(decision);
}

export function toEnforcement(decision: Decision): Enforcement {
  const headers: Record<string, string> = {};
  for (const h of decision.headers) headers[h.key] = h.value;
  if (decision.allowed) return { outcome: 'allowed', headers };
  if (decision.failedOpen) return { outcome: 'unavailable', headers };
  const after = retryAfter(decision.headers);
  if (after !== undefined) headers['retry-after'] = after;
  return { outcome: 'limited', headers };
}
