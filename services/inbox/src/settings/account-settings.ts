import { DEFAULT_SESSION_COOKIE, MIN_SIGNING_KEY_CHARS, type SecureCookieMode } from '@portcullis/accounts';
import type { EnvReader } from '@portcullis/kit';

/** Sign-in for the web inspector: the gateway's accounts, sessions and cookie (same Redis, keys, name). */
export interface AccountSettings {
  /** Signing keys, newest first; empty: one is made at start (sessions end when the inbox restarts). */
  sessionKeys: string[];
  cookieName: string;
  ttlSeconds: number;
  secureCookie: SecureCookieMode;
}

export function readAccountSettings(env: EnvReader): AccountSettings {
  const sessionKeys = env.list('INBOX_SESSION_KEYS');
  if (sessionKeys.some((k) => k.length < MIN_SIGNING_KEY_CHARS)) {
    env.problem(`INBOX_SESSION_KEYS: each key needs at least ${MIN_SIGNING_KEY_CHARS} characters`);
  }
  return {
    sessionKeys,
    cookieName: env.str('INBOX_SESSION_COOKIE', { default: DEFAULT_SESSION_COOKIE }),
    ttlSeconds: Math.round(
      env.durationMs('INBOX_SESSION_TTL', { default: '24h', min: '1s', max: '720h' }) / 1000,
    ),
    secureCookie: env.oneOf('INBOX_COOKIE_SECURE', ['auto', 'always', 'never'], { default: 'auto' }),
  };
}
