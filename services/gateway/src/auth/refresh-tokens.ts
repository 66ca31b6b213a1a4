import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { isSecureCookie, readCookie, type SecureCookieMode, type TokenDenylist } from '@portcullis/accounts';
import { RefreshTokenInvalidError, RefreshTokenReusedError } from '../errors.js';
import { CLOCK_TOLERANCE_SECONDS, type Jwt } from './jwt.js';
import type { RefreshFamily, RefreshStore } from './refresh-store.js';

/** `GATEWAY_REFRESH_TOKENS`: none, in the sign-in's JSON body, or in an HttpOnly cookie. */
export const REFRESH_MODES = ['off', 'body', 'cookie'] as const;
export type RefreshMode = (typeof REFRESH_MODES)[number];
export const REFRESH_COOKIE = 'portcullis_refresh';

/**
 * What a refresh came to: a new token (`rotated`), a spent one presented again (`reused`: the family is
 * revoked), or one that is malformed, unknown, expired, ended or of an account that is gone (`invalid`).
 */
export const REFRESH_RESULTS = ['rotated', 'reused', 'invalid'] as const;
export type RefreshResult = (typeof REFRESH_RESULTS)[number];

/** `rt.<family id>.<secret>`: the family is found by id, the secret checked by its hash. */
const TOKEN_FORM = /^rt\.([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.([\w-]{43})$/;

export interface RefreshTokensOptions {
  mode: 'body' | 'cookie';
  ttlSeconds: number;
  /** The access tokens' lifetime (`GATEWAY_JWT_TTL`): how long a revoked family stays on the denylist. */
  accessTtlSeconds: number;
  jwt: Jwt;
  store: RefreshStore;
  denylist: TokenDenylist;
  /** The cookie's `Path`: `/<base>/auth`, so it goes nowhere but to the sign-in. */
  cookiePath: string;
  secureCookie: SecureCookieMode;
  now: () => number;
  /** Told each refresh's result (the metrics). */
  onRefresh?: (result: RefreshResult) => void;
}

/** Who is signing in or refreshing: kept with the family for the admin API. */
export interface RefreshClient {
  userAgent: string;
  address: string;
  /** The request came over TLS (`isSecureRequest`): decides `Secure` with `GATEWAY_COOKIE_SECURE`. */
  https: boolean;
}

export interface IssuedTokens {
  body: Record<string, unknown>;
  setCookie?: string;
}

/**
 * Access tokens issued in refresh-token families. Each sign-in starts a family; each refresh spends the
 * presented token and issues the next (rotation); a spent token presented again ends the family and puts
 * its id on the token denylist, which every access token of the family is checked against (`fam` claim).
 */
export class RefreshTokens {
  constructor(private readonly o: RefreshTokensOptions) {}

  async start(account: { id: string; username: string }, client: RefreshClient): Promise<IssuedTokens> {
    const now = this.o.now();
    const secret = newSecret();
    const family: RefreshFamily = {
      id: randomUUID(),
      userId: account.id,
      createdAt: now,
      lastUsedAt: now,
      expiresAt: now + this.o.ttlSeconds * 1000,
      userAgent: client.userAgent.slice(0, 256),
      address: client.address,
    };
    await this.o.store.create(family, hashSecret(secret));
    return this.issue(account, { familyId: family.id, secret }, client.https);
  }

  /**
   * The next access and refresh tokens for a live refresh token.
   * @throws RefreshTokenInvalidError, RefreshTokenReusedError (the family is revoked first).
   */
  async refresh(
    token: string | undefined,
    client: RefreshClient,
    accountOf: (userId: string) => Promise<{ id: string; username: string } | undefined>,
  ): Promise<{ tokens: IssuedTokens; userId: string }> {
    try {
      const rotated = await this.rotate(token, client, accountOf);
      this.o.onRefresh?.('rotated');
      return rotated;
    } catch (e: unknown) {
      if (e instanceof RefreshTokenReusedError) this.o.onRefresh?.('reused');
      else if (e instanceof RefreshTokenInvalidError) this.o.onRefresh?.('invalid');
      throw e;
    }
  }

  private async rotate(
    token: string | undefined,
    client: RefreshClient,
    accountOf: (userId: string) => Promise<{ id: string; username: string } | undefined>,
  ): Promise<{ tokens: IssuedTokens; userId: string }> {
    const m = token === undefined ? null : TOKEN_FORM.exec(token);
    if (!m?.[1] || !m[2]) throw new RefreshTokenInvalidError();
    const familyId = m[1];
    const secret = newSecret();
    const now = this.o.now();
    const result = await this.o.store.rotate(familyId, hashSecret(m[2]), {
      hash: hashSecret(secret),
      now,
      expiresAt: now + this.o.ttlSeconds * 1000,
    });
    if (result.kind === 'unknown') throw new RefreshTokenInvalidError();
    if (result.kind === 'reused') {
      await this.revokeAccess(familyId);
      throw new RefreshTokenReusedError();
    }
    const account = await accountOf(result.family.userId);
    if (!account) {
      await this.end(familyId);
      throw new RefreshTokenInvalidError();
    }
    return { tokens: await this.issue(account, { familyId, secret }, client.https), userId: account.id };
  }

  /** The refresh token a `POST /auth` carries: `refresh_token` in the parameters, else the cookie (cookie mode). */
  tokenOf(params: Record<string, unknown>, cookieHeader: string | undefined): string | undefined {
    if (typeof params.refresh_token === 'string') return params.refresh_token;
    return this.o.mode === 'cookie' ? readCookie(cookieHeader, REFRESH_COOKIE) : undefined;
  }

  /** Ends the family and refuses its access tokens (`DELETE /auth`, the admin API). */
  async end(familyId: string, userId?: string): Promise<RefreshFamily | undefined> {
    const family = await this.o.store.end(familyId, userId);
    if (family || userId === undefined) await this.revokeAccess(familyId);
    return family;
  }

  list(userId: string): Promise<RefreshFamily[]> {
    return this.o.store.list(userId);
  }

  /** The `Set-Cookie` that removes the refresh cookie (cookie mode), for `DELETE /auth`. */
  clearCookie(https: boolean): string | undefined {
    return this.o.mode === 'cookie' ? this.cookie('', 0, https) : undefined;
  }

  private async issue(
    account: { id: string; username: string },
    { familyId, secret }: { familyId: string; secret: string },
    https: boolean,
  ): Promise<IssuedTokens> {
    const access = await this.o.jwt.sign(account, familyId);
    const refreshToken = `rt.${familyId}.${secret}`;
    const body = {
      jwt: access.token,
      token_type: 'Bearer',
      expires_in: this.o.accessTtlSeconds,
      refresh_expires_in: this.o.ttlSeconds,
    };
    return this.o.mode === 'cookie'
      ? { body, setCookie: this.cookie(refreshToken, this.o.ttlSeconds, https) }
      : { body: { ...body, refresh_token: refreshToken } };
  }

  private cookie(value: string, maxAge: number, https: boolean): string {
    const secure = isSecureCookie(this.o.secureCookie, https) ? '; Secure' : '';
    return `${REFRESH_COOKIE}=${value}; Path=${this.o.cookiePath}; HttpOnly; SameSite=Strict; Max-Age=${maxAge}${secure}`;
  }

  // every access token of the family carries its id as what the denylist is asked about; the newest
  // expires at most one access lifetime from now
  private revokeAccess(familyId: string): Promise<void> {
    const until = Math.floor(this.o.now() / 1000) + this.o.accessTtlSeconds + CLOCK_TOLERANCE_SECONDS;
    return this.o.denylist.revoke(familyId, until);
  }
}

function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

function hashSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('base64url');
}
