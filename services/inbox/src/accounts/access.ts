import type { FastifyRequest } from 'fastify';
import { ENDPOINT_ID } from '@portcullis/config';
import { countRawHeader, hashToken, isTokenHashMatch, NotFoundError } from '@portcullis/kit';
import type { WebSessions } from './web-sessions.js';
import { AdminDisabledError, authError, ShareReadOnlyError } from '../errors.js';
import type { EndpointRecord, InboxStore } from '../store/types.js';

/**
 * What a call does with an endpoint: `read` its captures (what a share token may), or `manage` it (any
 * change, a replay, its share links). `manage` is the default, so a route that does not say refuses share
 * tokens.
 */
export type Access = 'read' | 'manage';

/** Who opened an endpoint: `shareId` when a share token did (then the access is `read`). */
export interface Grant {
  endpoint: EndpointRecord;
  shareId?: string;
}

export interface Authorize {
  (request: FastifyRequest, endpointId: string, access?: Access): Promise<EndpointRecord>;
  /** The same check, telling whether a share token opened the endpoint (the live stream follows it). */
  grant(request: FastifyRequest, endpointId: string, access: Access): Promise<Grant>;
}

/**
 * Who may read and manage an endpoint: the holder of its token (anonymous endpoints), the admin token
 * (every endpoint), or a session of the owning account (account endpoints). A share token of the endpoint
 * reads it and nothing else: `403 SHARE_READ_ONLY` for `manage`.
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
  const grant = async (request: FastifyRequest, endpointId: string, access: Access): Promise<Grant> => {
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
      return { endpoint };
    }
    const token = bearerToken(header);
    if (token === undefined) throw authError('invalid_request');
    const endpoint = await find(endpointId);
    if (isTokenHashMatch(token, adminSha256)) {
      if (!endpoint) throw new NotFoundError('no such endpoint');
      return { endpoint };
    }
    // compared even when there is nothing to compare with: the same work either way
    const own = isTokenHashMatch(token, endpoint?.kind === 'anonymous' ? endpoint.tokenSha256 : '');
    if (endpoint && own) return { endpoint };
    // read whether or not the endpoint exists, for the same reason
    const shares = ENDPOINT_ID.test(endpointId) ? await o.store.listShares(endpointId) : [];
    const share = shares.find((s) => isTokenHashMatch(token, s.tokenSha256));
    if (!endpoint || !share) throw authError('invalid_token');
    if (access === 'manage') throw new ShareReadOnlyError();
    return { endpoint, shareId: share.id };
  };
  const authorize = async (request: FastifyRequest, endpointId: string, access: Access = 'manage') =>
    (await grant(request, endpointId, access)).endpoint;
  return Object.assign(authorize, { grant });
}

/**
 * The admin API's check: the admin token, alone (no session, no endpoint token). While `INBOX_ADMIN_TOKEN`
 * is empty there is no admin: `404 ADMIN_DISABLED`, whatever is sent.
 */
export function createAdminCheck(adminToken: string): (request: FastifyRequest) => void {
  const adminSha256 = adminToken === '' ? '' : hashToken(adminToken);
  return (request) => {
    if (adminSha256 === '') throw new AdminDisabledError();
    if (countRawHeader(request.raw.rawHeaders, 'authorization') > 1) throw authError('invalid_request');
    const token = bearerToken(request.headers.authorization ?? '');
    if (token === undefined) throw authError('admin');
    if (!isTokenHashMatch(token, adminSha256)) throw authError('invalid_token');
  };
}

export function bearerToken(header: string): string | undefined {
  const m = /^Bearer +([A-Za-z0-9._~+/=-]+) *$/i.exec(header);
  return m?.[1];
}
