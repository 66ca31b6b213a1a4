import { randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { CookieSessions, type AccountsBackend, type SignedIn } from '@portcullis/accounts';
import type { Logger } from '@portcullis/kit';
import type { Settings } from '../settings.js';

/** Who is signed in on a request: read from the cookie once, whatever asks first. */
export interface WebSessions {
  cookies: CookieSessions;
  /** Undefined when no cookie came or it opens nothing (expired, signed with another key, another service's). */
  signedIn(request: FastifyRequest): Promise<SignedIn | undefined>;
}

export function createWebSessions(o: {
  backend: AccountsBackend;
  settings: Readonly<Settings>['accounts'];
  log: Logger;
}): WebSessions {
  let keys = o.settings.sessionKeys;
  if (keys.length === 0) {
    keys = [randomBytes(48).toString('base64url')];
    if (o.backend.kind === 'redis') {
      // each replica would sign with its own key: a sign-in would hold on one pod only
      o.log.warn(
        'INBOX_SESSION_KEYS is not set: sign-ins end when this inbox restarts and hold on this replica only',
      );
    }
  }
  const cookies = new CookieSessions({
    accounts: o.backend.accounts,
    sessions: o.backend.sessions,
    keys,
    cookieName: o.settings.cookieName,
    ttlSeconds: o.settings.ttlSeconds,
    secure: o.settings.secureCookie,
  });
  const read = new WeakMap<FastifyRequest, Promise<SignedIn | undefined>>();
  return {
    cookies,
    signedIn(request) {
      let found = read.get(request);
      if (!found) {
        found = cookies
          .read(request.headers.cookie)
          .then((s) => (s.kind === 'signed-in' ? { account: s.account, sessionId: s.sessionId } : undefined));
        read.set(request, found);
      }
      return found;
    },
  };
}
