import type { FastifyReply, FastifyRequest } from 'fastify';
import { countRawHeader, InvalidArgumentError, type UnauthenticatedError } from '@portcullis/kit';
import { type AccountStore, type CookieSessions, type TokenDenylist } from '@portcullis/accounts';
import { authError } from '../errors.js';
import type { AuthMode } from '../settings.js';
import { CLOCK_TOLERANCE_SECONDS, bearerToken, type Jwt } from './jwt.js';
import type { RefreshTokens } from './refresh-tokens.js';
import type { TokenVerifier } from './token-verifier.js';
import type { ApiKeyAuth } from '../apps/api-key-auth.js';
import type { Caller } from './caller.js';

export interface AuthenticatorOptions {
  mode: AuthMode;
  jwt: Jwt;
  /** Our tokens and the identity providers', through the verified-token cache. */
  tokens: TokenVerifier;
  accounts: AccountStore;
  cookies: CookieSessions;
  denylist: TokenDenylist;
  /** Applications' API keys, in every mode; a key, when sent, names the caller and other credentials are not read. */
  apiKeys?: ApiKeyAuth;
  /** jwt mode with `GATEWAY_REFRESH_TOKENS` on: sign-ins start refresh-token families. */
  refresh?: RefreshTokens;
}

/** The request `POST /auth` answers, as `login` needs it. */
export interface LoginRequest {
  secure: boolean;
  cookie: string | undefined;
  userAgent: string;
  address: string;
}

const LOGIN_FAILED = 'Login not successful';

/**
 * The gateway's three auth modes. `none`: nobody is identified and `auth` flags are ignored. `jwt`: a
 * Bearer token from `POST /auth` or from an identity provider of `GATEWAY_JWT_ISSUERS`, revocable with
 * `DELETE /auth` until it expires. `session`: a signed, HTTP-only cookie naming a session in the shared store (the inbox web app reads the same one).
 */
export class Authenticator {
  constructor(private readonly o: AuthenticatorOptions) {}

  /**
   * The caller, or undefined when no credentials came. Credentials that came but do not hold (bad,
   * expired, revoked) are a 401 (`authError`) even on an open route: the client should know.
   */
  async identify(request: FastifyRequest): Promise<Caller | undefined> {
    const application = await this.o.apiKeys?.(request);
    if (application) return application;
    switch (this.o.mode) {
      case 'none':
        return undefined;
      case 'jwt':
        // node keeps the first of two Authorization headers; a proxy in front may have checked the other
        if (countRawHeader(request.raw.rawHeaders, 'authorization') > 1) throw badAuthorizationHeader();
        return this.fromToken(request.headers.authorization);
      case 'session':
        return this.fromCookie(request.headers.cookie);
      default: {
        const unknown: never = this.o.mode;
        throw new Error(`unknown auth mode ${String(unknown)}`);
      }
    }
  }

  /** The 401 for a route that needs a caller and got none. */
  missing(): UnauthenticatedError {
    return this.o.mode === 'jwt'
      ? authError('No Authorization Header found', { scheme: 'Bearer' })
      : authError('user does not have authorization', { scheme: 'Cookie' });
  }

  /**
   * `POST /auth` with `username` and `password` (JSON or form). In session mode the session named by the
   * request's `cookie` ends: a new sign-in replaces it (no fixation). With refresh tokens on,
   * `grant_type=refresh_token` exchanges a refresh token instead (refresh-tokens.ts).
   */
  async login(params: Record<string, unknown>, reply: FastifyReply, request: LoginRequest): Promise<unknown> {
    const { refresh } = this.o;
    if (refresh && this.o.mode === 'jwt' && params.grant_type === 'refresh_token') {
      const client = { userAgent: request.userAgent, address: request.address, https: request.secure };
      const { tokens } = await refresh.refresh(refresh.tokenOf(params, request.cookie), client, (id) =>
        this.o.accounts.getById(id),
      );
      if (tokens.setCookie) void reply.header('set-cookie', tokens.setCookie);
      return tokens.body;
    }
    const username = typeof params.username === 'string' ? params.username : '';
    const password = typeof params.password === 'string' ? params.password : '';
    const account =
      username && password ? await this.o.accounts.verifyCredentials(username, password) : undefined;
    if (!account) throw authError(LOGIN_FAILED, { scheme: this.o.mode === 'session' ? 'Cookie' : 'Bearer' });
    switch (this.o.mode) {
      case 'jwt': {
        if (!refresh) return { jwt: (await this.o.jwt.sign(account)).token };
        const tokens = await refresh.start(account, {
          userAgent: request.userAgent,
          address: request.address,
          https: request.secure,
        });
        if (tokens.setCookie) void reply.header('set-cookie', tokens.setCookie);
        return tokens.body;
      }
      case 'session': {
        const { setCookie } = await this.o.cookies.start(account.id, {
          https: request.secure,
          cookie: request.cookie,
        });
        void reply.header('set-cookie', setCookie);
        return { message: `logged in: ${account.username}` };
      }
      case 'none':
        return null;
      default: {
        const unknown: never = this.o.mode;
        throw new Error(`unknown auth mode ${String(unknown)}`);
      }
    }
  }

  /** `DELETE /auth`: revokes the token or ends the session. */
  async logout(caller: Caller | undefined, reply: FastifyReply, secure: boolean): Promise<unknown> {
    if (this.o.mode === 'none') return null;
    if (!caller) throw this.missing();
    // a key names the caller before a token or cookie is read: ending nothing must not look like a sign-out
    if (caller.via === 'apikey')
      throw new InvalidArgumentError(
        'DELETE /auth ends a token or session; revoke an API key through the admin API',
      );
    // kept while a token could still pass verification, clock tolerance included
    if (caller.token)
      await this.o.denylist.revoke(caller.token.revocationId, caller.token.exp + CLOCK_TOLERANCE_SECONDS);
    if (caller.token?.family !== undefined && this.o.refresh) {
      await this.o.refresh.end(caller.token.family);
      const clear = this.o.refresh.clearCookie(secure);
      if (clear) void reply.header('set-cookie', clear);
    }
    if (caller.sessionId !== undefined) {
      void reply.header('set-cookie', await this.o.cookies.end(caller.sessionId, { https: secure }));
    }
    return { message: `logged out: ${caller.account.username}` };
  }

  private async fromToken(header: string | undefined): Promise<Caller | undefined> {
    if (header === undefined || header.trim() === '') return undefined;
    const token = bearerToken(header);
    if (!token) throw badAuthorizationHeader();
    const verified = await this.o.tokens.verify(token);
    const { claims, revocationId, exp } = verified;
    // asked on every request, cached verdict or not (a revoked token is refused at once), and together:
    // one round trip's wait instead of two
    const [revoked, account] = await Promise.all([
      this.o.denylist.isRevoked(revocationId),
      verified.external ?? this.o.accounts.getById(verified.sub),
    ]);
    if (revoked) throw authError('Token revoked', { scheme: 'Bearer', detail: 'invalid_token' });
    if (!account) throw authError('Invalid token', { scheme: 'Bearer', detail: 'invalid_token' });
    // an identity provider's token may carry any claims: only ours name a family
    const family = !verified.external && typeof claims.fam === 'string' ? claims.fam : undefined;
    return { account, via: 'jwt', claims, token: { revocationId, exp, ...(family ? { family } : {}) } };
  }

  private async fromCookie(header: string | undefined): Promise<Caller | undefined> {
    const found = await this.o.cookies.read(header);
    if (found.kind === 'none') return undefined;
    if (found.kind === 'invalid') throw authError('session expired or invalid', { scheme: 'Cookie' });
    return { account: found.account, via: 'session', sessionId: found.sessionId };
  }
}

function badAuthorizationHeader(): UnauthenticatedError {
  return authError('Invalid Authorization header: expected Bearer <token>', {
    scheme: 'Bearer',
    detail: 'invalid_request',
  });
}
