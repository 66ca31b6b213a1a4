import type { FastifyRequest } from 'fastify';
import { ENDPOINT_ID } from '@portcullis/config';
import { hashToken, isTokenMatch } from '../endpoints/credentials.js';
import { AuthError, NotFoundError } from '../errors.js';
import type { EndpointRecord, InboxStore } from '../store/types.js';

export type Authorize = (request: FastifyRequest, endpointId: string) => Promise<EndpointRecord>;

/**
 * Who may read and manage an endpoint: the holder of its token (anonymous endpoints), or of the admin
 * token (every endpoint). A missing or wrong token answers 401 whether the id exists or not, so only a
 * caller who could read the endpoint learns that it does; 404 goes to the admin alone.
 */
export function createAuthorize(o: { store: InboxStore; adminToken: string }): Authorize {
  const adminSha256 = o.adminToken === '' ? '' : hashToken(o.adminToken);
  return async (request, endpointId) => {
    const token = bearerToken(request.headers.authorization);
    if (token === undefined) throw new AuthError('invalid_request');
    const endpoint = ENDPOINT_ID.test(endpointId) ? await o.store.getEndpoint(endpointId) : undefined;
    if (isTokenMatch(token, adminSha256)) {
      if (!endpoint) throw new NotFoundError('no such endpoint');
      return endpoint;
    }
    // compared even when there is nothing to compare with: the same work either way
    const own = isTokenMatch(token, endpoint?.kind === 'anonymous' ? endpoint.tokenSha256 : '');
    if (!endpoint || !own) throw new AuthError('invalid_token');
    return endpoint;
  };
}

function bearerToken(header: string | undefined): string | undefined {
  const m = /^Bearer +([A-Za-z0-9._~+/=-]+) *$/i.exec(header ?? '');
  return m?.[1];
}
