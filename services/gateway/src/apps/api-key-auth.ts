import type { FastifyRequest } from 'fastify';
import { countRawHeader, hashToken } from '@portcullis/kit';
import { apiKeyError } from '../errors.js';
import type { Caller } from '../auth/caller.js';
import type { AppStore } from './app-types.js';

/** An application caller's account id: `app:<application id>`, never an account's (those are base64url). */
export const APP_CALLER_PREFIX = 'app:';

/** What checking a sent key came to: the metrics' label values. */
export const API_KEY_RESULTS = ['accepted', 'unknown', 'expired', 'revoked'] as const;
export type ApiKeyResult = (typeof API_KEY_RESULTS)[number];

/**
 * The caller an API key in `header` names: its application, with the application's roles. Undefined when
 * the header is absent; a key that is unknown, expired or revoked, or a header sent twice, is a 401 even on
 * an open route, as a bad token is. `onResult` is told each checked key's result (not a header sent twice,
 * which names no one key, nor a store that did not answer).
 */
export function createApiKeyAuth(o: {
  store: AppStore;
  header: string;
  now?: () => number;
  onResult?: (result: ApiKeyResult) => void;
}) {
  const now = o.now ?? Date.now;
  const refuse = (result: Exclude<ApiKeyResult, 'accepted'>, message: string) => {
    o.onResult?.(result);
    return apiKeyError(message, o.header);
  };
  return async (request: FastifyRequest): Promise<Caller | undefined> => {
    const value = request.headers[o.header];
    if (value === undefined || value === '') return undefined;
    if (typeof value !== 'string' || countRawHeader(request.raw.rawHeaders, o.header) > 1)
      throw apiKeyError(`send one ${o.header} header`, o.header);
    const found = await o.store.findByKeyHash(hashToken(value.trim()));
    if (!found) throw refuse('unknown', 'API key not valid');
    const { key, app } = found;
    if (key.revokedAt !== undefined) throw refuse('revoked', 'API key revoked');
    if (key.expiresAt !== undefined && Date.parse(key.expiresAt) <= now())
      throw refuse('expired', 'API key expired');
    o.onResult?.('accepted');
    return {
      account: { id: `${APP_CALLER_PREFIX}${app.id}`, username: app.name },
      via: 'apikey',
      roles: app.roles,
      app: { id: app.id, keyId: key.id },
    };
  };
}

export type ApiKeyAuth = ReturnType<typeof createApiKeyAuth>;
