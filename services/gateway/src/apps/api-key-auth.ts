import type { FastifyRequest } from 'fastify';
import { countRawHeader } from '@portcullis/kit';
import { apiKeyError } from '../errors.js';
import type { Caller } from '../auth/authenticator.js';
import { hashApiKey } from './api-key.js';
import type { AppStore } from './app-types.js';

/** An application caller's account id: `app:<application id>`, never an account's (those are base64url). */
export const APP_CALLER_PREFIX = 'app:';

/**
 * The caller an API key in `header` names: its application, with the application's roles. Undefined when
 * the header is absent; a key that is unknown, expired or revoked, or a header sent twice, is a 401 even on
 * an open route, as a bad token is.
 */
export function createApiKeyAuth(o: { store: AppStore; header: string; now?: () => number }) {
  const now = o.now ?? Date.now;
  return async (request: FastifyRequest): Promise<Caller | undefined> => {
    const value = request.headers[o.header];
    if (value === undefined || value === '') return undefined;
    if (typeof value !== 'string' || countRawHeader(request.raw.rawHeaders, o.header) > 1)
      throw apiKeyError(`send one ${o.header} header`, o.header);
    const found = await o.store.findByKeyHash(hashApiKey(value.trim()));
    if (!found) throw apiKeyError('API key not valid', o.header);
    const { key, app } = found;
    if (key.revokedAt !== undefined) throw apiKeyError('API key revoked', o.header);
    if (key.expiresAt !== undefined && Date.parse(key.expiresAt) <= now())
      throw apiKeyError('API key expired', o.header);
    return {
      account: { id: `${APP_CALLER_PREFIX}${app.id}`, username: app.name },
      via: 'apikey',
      roles: app.roles,
      app: { id: app.id, keyId: key.id },
    };
  };
}

export type ApiKeyAuth = ReturnType<typeof createApiKeyAuth>;
