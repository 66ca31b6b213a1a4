import type { FastifyRequest } from 'fastify';
import { ENDPOINT_ID } from '@portcullis/config';
import { countRawHeader, NotFoundError } from '@portcullis/kit';
import type { WebSessions } from '../accounts/web-sessions.js';
import { hashToken, isTokenMatch } from './endpoint-credentials.js';
import { authError } from '../errors.js';
import type { EndpointRecord, InboxStore } from '../store/types.js';

export type Authorize = (request: FastifyRequest, endpointId: string) => Promise<EndpointRecord>;

/**
 * Who may read and manage an endpoint: the holder of its token (anonymous endpoints), the admin token
 * (every endpoint), or a session of the owning account (account endpoints).
 *
 * - A bearer token decides alone. A missing or wrong one answers 401 whether the id exists or not, so only
 *   a caller who could read the endpoint learns that it does; 404 goes to the admin alone.
 * - Without a token, a signed-in account gets its own endpoints and 404 for any other id, its owner's or
 *   not, so one account never learns which ids another holds. Nobody signed in: 401.
 */
export function createAuthorize(o: {
  store: InboxStore;
  adminToken: string;
  sessions: WebSessions;
}): Authorize {
  const adminSha256 = o.adminToken === '' ? '' : hashToken(o.adminToken);
  const find = (id: string): Promise<EndpointRecord | undefined> =>
    ENDPOINT_ID.test(id) ? o.store.getEndpoint(id) : Promise.resolve(undefined);
  return async (request, endpointId) => {
    const header = request.headers.authorization;
    // node keeps the first of two Authorization headers; a proxy in front may have checked the other
    if (countRawHeader(request.raw.rawHeaders, 'authorization') > 1) throw authError('invalid_request');
    if (header === undefined) {
      const signedIn = await o.sessions.signedIn(request);
      if (!signedIn) throw authError('invalid_request');
      const endpoint = await find(endpointId);
      if (endpoint?.kind !== 'account' || endpoint.ownerId !== signedIn.account.id) {
        throw new NotFoundError('no such endpoint');
      }
      return endpoint;
    }
    const token = bearerToken(header);
    if (token === undefined) throw authError('invalid_request');
    const endpoint = await find(endpointId);
    if (isTokenMatch(token, adminSha256)) {
      if (!endpoint) throw new NotFoundError('no such endpoint');
      return endpoint;
    }
    // compared even when there is nothing to compare with: the same work either way
    const own = isTokenMatch(token, endpoint?.kind === 'anonymous' ? endpoint.tokenSha256 : '');
    if (!endpoint || !own) throw authError('invalid_token');
    return endpoint;
  };
}

export function bearerToken(header: string): string | undefined {
  const m = /^Bearer +([A-Za-z0-9._~+/=-]+) *$/i.exec(header);
  return m?.[1];
}
