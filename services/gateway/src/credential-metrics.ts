import { Counter, type Registry } from 'prom-client';
import { API_KEY_RESULTS, type ApiKeyResult } from './apps/api-key-auth.js';
import { REFRESH_RESULTS, type RefreshResult } from './auth/refresh-tokens.js';

export interface CredentialMetrics {
  refresh: (result: RefreshResult) => void;
  apiKey: (result: ApiKeyResult) => void;
}

/**
 * Counters of refresh-token and API-key outcomes, labelled by result only (a closed set, each exported at 0
 * from the start, so a rate of reuse is defined before the first one): never a user, application or key.
 */
export function createCredentialMetrics(registry: Registry): CredentialMetrics {
  const refreshes = new Counter({
    name: 'portcullis_gateway_refresh_tokens_total',
    help: 'Refresh-token uses, by result: rotated, reused (its whole family revoked) or invalid (unknown, expired, ended or malformed).',
    labelNames: ['result'],
    registers: [registry],
  });
  const apiKeys = new Counter({
    name: 'portcullis_gateway_api_key_authentications_total',
    help: 'API keys checked, by result: accepted, unknown, expired or revoked.',
    labelNames: ['result'],
    registers: [registry],
  });
  for (const result of REFRESH_RESULTS) refreshes.inc({ result }, 0);
  for (const result of API_KEY_RESULTS) apiKeys.inc({ result }, 0);
  return {
    refresh: (result) => refreshes.inc({ result }),
    apiKey: (result) => apiKeys.inc({ result }),
  };
}
