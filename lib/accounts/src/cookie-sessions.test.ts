import { describe, expect, it } from 'vitest';
import { CookieSessions, readCookie } from './cookie-sessions.js';
import { InvalidArgumentError } from '@portcullis/kit';
import { createMemoryAccountStore } from './memory-accounts.js';
import { createMemorySessionStore } from './memory-sessions.js';
import { createScryptHasher } from './password-hasher.js';
import { signValue } from './signed-value.js';

const KEY = 'k'.repeat(32);
const OLD_KEY = 'o'.repeat(32);

async function setUp(o: { keys?: string[]; secure?: 'auto' | 'always' | 'never' } = {}) {
  let t = Date.parse('2026-01-01T00:00:00Z');
  const now = () => t;
  const accounts = createMemoryAccountStore({ hasher: createScryptHasher({ ln: 10 }), now });
  const sessions = createMemorySessionStore({ now });
  const cookies = new CookieSessions({
    accounts,
    sessions,
    keys: o.keys ?? [KEY],
    cookieName: 'sid',
    ttlSeconds: 60,
    secure: o.secure ?? 'auto',
  });
  const account = await accounts.createUser({ username: 'alice', password: 'correct horse' });
  return { accounts, sessions, cookies, account, advance: (ms: number) => (t += ms) };
}

/** The `name=value` part of a Set-Cookie value, as a browser sends it back. */
const sent = (setCookie: string): string => setCookie.split(';')[0] ?? '';

describe('cookie sessions', () => {
  it('starts a session in an HttpOnly, SameSite=Lax cookie on / that reads back as the account', async () => {
    const { cookies, account } = await setUp();
    const { setCookie, sessionId } = await cookies.start(account.id, { https: false });
    expect(setCookie).toMatch(
      /^sid=[A-Za-z0-9_-]{43}\.[A-Za-z0-9_-]{43}; Path=\/; HttpOnly; SameSite=Lax; Max-Age=60$/,
    );
    expect(await cookies.read(`other=1; ${sent(setCookie)}`)).toEqual({
      kind: 'signed-in',
      account,
      sessionId,
    });
  });

  it('ends the session the request presented when it starts a new one; an unsigned cookie ends nothing', async () => {
    const { cookies, account } = await setUp();
    const first = await cookies.start(account.id, { https: false });
    const other = await cookies.start(account.id, { https: false });
    const second = await cookies.start(account.id, { https: false, cookie: `x=1; ${sent(first.setCookie)}` });
    expect(await cookies.read(sent(first.setCookie))).toEqual({ kind: 'invalid' });
    expect((await cookies.read(sent(second.setCookie))).kind).toBe('signed-in');
    await cookies.start(account.id, { https: false, cookie: `sid=${other.sessionId}` });
    expect((await cookies.read(sent(other.setCookie))).kind).toBe('signed-in');
  });

  it('adds Secure over https in auto mode, always in always mode, never in never mode', async () => {
    const auto = await setUp();
    expect((await auto.cookies.start(auto.account.id, { https: true })).setCookie).toMatch(/; Secure$/);
    expect((await auto.cookies.start(auto.account.id, { https: false })).setCookie).not.toMatch(/Secure/);
    const always = await setUp({ secure: 'always' });
    expect((await always.cookies.start(always.account.id, { https: false })).setCookie).toMatch(/; Secure$/);
    const never = await setUp({ secure: 'never' });
    expect((await never.cookies.start(never.account.id, { https: true })).setCookie).not.toMatch(/Secure/);
  });

  it('slides the expiry on each read and reports an expired session as invalid', async () => {
    const { cookies, account, advance } = await setUp();
    const { setCookie } = await cookies.start(account.id, { https: false });
    advance(50_000);
    expect((await cookies.read(sent(setCookie))).kind).toBe('signed-in');
    advance(50_000); // 100 s after the start, 50 s after the read
    expect((await cookies.read(sent(setCookie))).kind).toBe('signed-in');
    advance(60_000);
    expect(await cookies.read(sent(setCookie))).toEqual({ kind: 'invalid' });
  });

  it('tells no cookie from one that opens nothing: tampered, unsigned, ended, or of a deleted account', async () => {
    const { cookies, accounts, account } = await setUp();
    expect(await cookies.read(undefined)).toEqual({ kind: 'none' });
    expect(await cookies.read('other=1')).toEqual({ kind: 'none' });
    expect(await cookies.read('sid=')).toEqual({ kind: 'none' });
    const { setCookie, sessionId } = await cookies.start(account.id, { https: false });
    expect(await cookies.read(`${sent(setCookie)}x`)).toEqual({ kind: 'invalid' });
    expect(await cookies.read(`sid=${sessionId}`)).toEqual({ kind: 'invalid' });
    await accounts.deleteUser(account.id);
    expect(await cookies.read(sent(setCookie))).toEqual({ kind: 'invalid' });
  });

  it('ends the session and clears the cookie', async () => {
    const { cookies, sessions, account } = await setUp();
    const { setCookie, sessionId } = await cookies.start(account.id, { https: false });
    expect(await cookies.end(sessionId, { https: false })).toBe(
      'sid=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0',
    );
    expect(await sessions.get(sessionId)).toBeUndefined();
    expect(await cookies.read(sent(setCookie))).toEqual({ kind: 'invalid' });
  });

  it('accepts cookies signed with an older key after rotation', async () => {
    const { cookies, sessions, account } = await setUp({ keys: [KEY, OLD_KEY] });
    const session = await sessions.create(account.id, { ttlSeconds: 60 });
    expect((await cookies.read(`sid=${signValue(session.id, [OLD_KEY])}`)).kind).toBe('signed-in');
  });

  it('refuses short keys and a cookie name that is not an HTTP token when built', async () => {
    await expect(setUp({ keys: ['short'] })).rejects.toThrow(InvalidArgumentError);
    const { accounts, sessions } = await setUp();
    const build = (cookieName: string) =>
      new CookieSessions({ accounts, sessions, keys: [KEY], cookieName, ttlSeconds: 60, secure: 'auto' });
    expect(() => build('a b')).toThrow(new InvalidArgumentError('cookie name "a b": not an HTTP token'));
    expect(() => build('a;b')).toThrow(InvalidArgumentError);
    expect(build('__Host-sid').cookieName).toBe('__Host-sid');
  });
});

describe('readCookie', () => {
  it('reads no value from a part without `=`, even one that starts with the name', () => {
    expect(readCookie('sidx', 'sid')).toBeUndefined();
    expect(readCookie('sidx; sid=v', 'sid')).toBe('v');
  });

  it('finds the first cookie of a name, percent-decoded, and ignores malformed escapes', () => {
    expect(readCookie('a=1; sid=x%2By; sid=second', 'sid')).toBe('x+y');
    expect(readCookie('asid=1', 'sid')).toBeUndefined();
    expect(readCookie('sid=%E0%A4%A', 'sid')).toBeUndefined();
    expect(readCookie('sid=%E0%A4%A; sid=second', 'sid')).toBeUndefined();
    expect(readCookie('a=1;  sid = v ', 'sid')).toBe('v');
    expect(readCookie(undefined, 'sid')).toBeUndefined();
  });
});
