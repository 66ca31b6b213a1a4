import { createRedisCaller } from '@portcullis/redis';
import { AccountsBackendError } from './errors.js';

/** Redis calls whose failures become `AccountsBackendError` (the cause kept). */
export const { call: callRedis } = createRedisCaller(
  'accounts backend',
  (message, cause) => new AccountsBackendError(message, { cause }),
);

/** HGETALL's reply as a field map, or undefined for a missing key (Redis answers `{}`). */
export function toFieldMap(reply: Record<string, string>): Record<string, string> | undefined {
  return Object.keys(reply).length === 0 ? undefined : reply;
}
