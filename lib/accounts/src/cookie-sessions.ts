import { InvalidArgumentError } from '@portcullis/kit';
import { signValue, unsignValue } from './signed-value.js';
import type { Account, AccountStore, SessionStore } from './types.js';

// The platform's sign-in cookie, one for the gateway (`GATEWAY_AUTH=session`) and the inbox web app: a
// session id from the shared SessionStore, signed with the session keys, in an HTTP-only, SameSite=Lax
// cookie on `/`. Two services given the same Redis, keys and cookie name on one host share sign-ins.

/** The name both services use unless configured otherwise. */
export const DEFAULT_SESSION_COOKIE = 'portcullis_session';

export type SecureCookieMode = 'auto' | 'always' | 'never';

export interface CookieSessionOptions {
  accounts: AccountStore;
  sessions: SessionStore;
  /** Signing keys, newest first (see `signValue`). */
  keys: readonly string[];
  cookieName: string;
  /** Sliding: every request that reads the session restarts it. */
  ttlSeconds: number;
  /** `auto`: `Secure` when the request came over https. */
  secure: SecureCookieMode;
}

export interface SignedIn {
  account: Account;
  sessionId: string;
}

/** What `read` found: no cookie at all, a signed-in account, or a cookie that opens nothing. */
export type CookieSession = { kind: 'none' } | ({ kind: 'signed-in' } & SignedIn) | { kind: 'invalid' };

export class CookieSessions {
  constructor(private readonly o: CookieSessionOptions) {
    signValue('', o.keys); // refuses missing or short keys now rather than at the first sign-in
    if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(o.cookieName)) {
      throw new InvalidArgumentError(`cookie name ${JSON.stringify(o.cookieName)}: not an HTTP token`);
    }
  }

  get cookieName(): string {
    return this.o.cookieName;
  }

  /**
   * The session named by the request's `Cookie` header, its expiry moved on. A bad signature, an expired
   * or ended session and a deleted account are all `invalid`.
   */
  async read(cookieHeader: string | undefined): Promise<CookieSession> {
    const raw = readCookie(cookieHeader, this.o.cookieName);
    if (raw === undefined || raw === '') return { kind: 'none' };
    const sessionId = unsignValue(raw, this.o.keys);
    const session = sessionId === undefined ? undefined : await this.o.sessions.get(sessionId);
    const account = session ? await this.o.accounts.getById(session.accountId) : undefined;
    if (!session || !account) return { kind: 'invalid' };
    await this.o.sessions.touch(session.id, this.o.ttlSeconds);
    return { kind: 'signed-in', account, sessionId: session.id };
  }

  /**
   * A new session for the account and the `Set-Cookie` value that carries it. The session named by the
   * `Cookie` header in `request.cookie`, if any and validly signed, is ended first (no fixation; any account's).
   */
  async start(
    accountId: string,
    request: { https: boolean; cookie?: string | undefined },
  ): Promise<{ sessionId: string; setCookie: string }> {
    const prior = readCookie(request.cookie, this.o.cookieName);
    const priorId = prior === undefined ? undefined : unsignValue(prior, this.o.keys);
    if (priorId !== undefined) await this.o.sessions.destroy(priorId);
    const session = await this.o.sessions.create(accountId, { ttlSeconds: this.o.ttlSeconds });
    const value = signValue(session.id, this.o.keys);
    return { sessionId: session.id, setCookie: this.cookie(value, this.o.ttlSeconds, request.https) };
  }

  /** Ends the session (when there is one) and returns the `Set-Cookie` value that removes the cookie. */
  async end(sessionId: string | undefined, request: { https: boolean }): Promise<string> {
    if (sessionId !== undefined) await this.o.sessions.destroy(sessionId);
    return this.cookie('', 0, request.https);
  }

  private cookie(value: string, maxAge: number, https: boolean): string {
    const secure = isSecureCookie(this.o.secure, https);
    return `${this.o.cookieName}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAge}${secure ? '; Secure' : ''}`;
  }
}

/** Whether a cookie set in answer to a request (`https`: it came over TLS) is marked `Secure`. */
export function isSecureCookie(mode: SecureCookieMode, https: boolean): boolean {
  return mode === 'always' || (mode === 'auto' && https);
}

/** The first cookie of that name in a `Cookie` header, percent-decoded; undefined when absent. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) {
      try {
        return decodeURIComponent(part.slice(i + 1).trim());
      } catch {
        return undefined; // malformed escapes: no usable value
      }
    }
  }
  return undefined;
}
