import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRedis, type RedisServer } from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayApp } from '@portcullis/gateway';
import type { InboxApp } from '@portcullis/inbox';
import { startGatewayHarness } from '../services/gateway/test/harness.js';
import {
  sendRaw,
  sessionCookie,
  startInboxHarness,
  type RawResponse,
} from '../services/inbox/test/harness.js';

// Issue 15, the CSRF and session-cookie findings of a black-box probe, against the gateway
// (GATEWAY_AUTH=session) and the inbox on one account store: one CSRF rule for every cookie-setting or
// cookie-authenticated write of both (decided on the routed path, so percent-encoding does not skip it),
// `Secure` behind a trusted TLS proxy only, and a new gateway sign-in ending the session it replaces.

const KEY = 'shared-session-key-0123456789abcdef';
const PASSWORD = 'correct horse battery';
const ALLOWED_ORIGIN = 'https://app.example';

type Body = 'json' | 'form';
type ServiceName = 'gateway' | 'inbox';

/** How each service signs in and what a cookie-authenticated write is there. */
const SERVICES: Record<
  ServiceName,
  {
    signIn: string;
    encodedSignIn: string;
    write: string;
    encodedWrite: string;
    csrfHeader: Record<string, string>;
  }
> = {
  gateway: {
    signIn: '/api/auth',
    encodedSignIn: '/api/%61uth',
    write: '/api/echo/1',
    encodedWrite: '/api/%65cho/1',
    csrfHeader: {},
  },
  inbox: {
    signIn: '/api/session',
    encodedSignIn: '/api/%73ession',
    write: '/api/endpoints',
    encodedWrite: '/%61pi/endpoints',
    csrfHeader: { 'x-inbox-csrf': '1' },
  },
};

/** What a cross-site page (a form, or a script without a CORS grant) can make a browser send. */
const CROSS_SITE: Record<string, Record<string, string>> = {
  'a cross-site Origin': { origin: 'https://evil.example' },
  'Sec-Fetch-Site: cross-site': { 'sec-fetch-site': 'cross-site' },
  'Sec-Fetch-Site: same-site': { 'sec-fetch-site': 'same-site' },
  'a null Origin': { origin: 'null' },
  'both, as a browser sends them': { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
};

function encode(body: Body, fields: Record<string, string>): { body: string; type: string } {
  return body === 'json'
    ? { body: JSON.stringify(fields), type: 'application/json' }
    : { body: new URLSearchParams(fields).toString(), type: 'application/x-www-form-urlencoded' };
}

function codeOf(r: RawResponse): unknown {
  return (r.json as { code?: unknown } | undefined)?.code;
}

describe('issue 15: one CSRF rule and safe session cookies, gateway and inbox', () => {
  let redis: RedisServer;
  let dir: string;
  const apps: { close(): Promise<void> }[] = [];
  /** Ports by service: `trusted` trusts 127.0.0.1 as its proxy, `untrusted` trusts another address only. */
  const ports = { trusted: { gateway: 0, inbox: 0 }, untrusted: { gateway: 0, inbox: 0 } };

  const startPair = async (trustProxy: string): Promise<{ gateway: GatewayApp; inbox: InboxApp }> => {
    const gateway = await startGatewayHarness({
      GATEWAY_AUTH: 'session',
      GATEWAY_SESSION_KEYS: KEY,
      GATEWAY_CORS_ORIGINS: ALLOWED_ORIGIN,
      GATEWAY_TRUST_PROXY: trustProxy,
      REDIS_URL: `redis://${redis.address}`,
    });
    apps.push(gateway);
    const inbox = await startInboxHarness({
      INBOX_SESSION_KEYS: KEY,
      INBOX_WEB_DIR: dir,
      INBOX_PUBLIC_URL: ALLOWED_ORIGIN,
      INBOX_TRUST_PROXY: trustProxy,
      REDIS_URL: `redis://${redis.address}`,
    });
    apps.push(inbox);
    return { gateway: gateway.app, inbox: inbox.app };
  };

  beforeAll(async () => {
    redis = await startRedis();
    dir = await mkdtemp(join(tmpdir(), 'issue-15-'));
    const trusted = await startPair('127.0.0.1');
    const untrusted = await startPair('10.0.0.1');
    ports.trusted = { gateway: trusted.gateway.port, inbox: trusted.inbox.port };
    ports.untrusted = { gateway: untrusted.gateway.port, inbox: untrusted.inbox.port };
    await trusted.gateway.backend.accounts.createUser({ username: 'mia', password: PASSWORD });
  });
  afterAll(async () => {
    for (const app of apps.reverse()) await app.close();
    await redis.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const send = (
    service: ServiceName,
    at: { path: string; method?: string; body?: Body; headers?: Record<string, string> },
    pair: keyof typeof ports = 'trusted',
  ): Promise<RawResponse> => {
    const fields =
      at.body === undefined ? undefined : encode(at.body, { username: 'mia', password: PASSWORD });
    return sendRaw(ports[pair][service], at.method ?? 'POST', at.path, {
      headers: {
        host: `127.0.0.1:${ports[pair][service]}`,
        ...(fields ? { 'content-type': fields.type } : {}),
        ...at.headers,
      },
      ...(fields ? { body: fields.body } : {}),
    });
  };
  const signIn = async (service: ServiceName, headers: Record<string, string> = {}): Promise<string> => {
    const r = await send(service, {
      path: SERVICES[service].signIn,
      body: 'json',
      headers: { ...SERVICES[service].csrfHeader, ...headers },
    });
    expect(r.status).toBe(200);
    return sessionCookie(r.headers);
  };

  describe('login CSRF: a cross-site sign-in is refused and sets no cookie', () => {
    const cases = (['gateway', 'inbox'] as const).flatMap((service) =>
      (['json', 'form'] as const).flatMap((body) =>
        [SERVICES[service].signIn, SERVICES[service].encodedSignIn].flatMap((path) =>
          Object.entries(CROSS_SITE).map(([how, headers]) => ({ service, body, path, how, headers })),
        ),
      ),
    );
    it.each(cases)('$service POST $path, $body body, $how: 403', async ({ service, body, path, headers }) => {
      const r = await send(service, { path, body, headers });
      expect(r.status).toBe(403);
      expect(codeOf(r)).toBe('CSRF_CHECK_FAILED');
      expect(r.headers['set-cookie']).toBeUndefined();
    });
  });

  describe('a cross-site write carrying the session cookie is refused', () => {
    const cases = (['gateway', 'inbox'] as const).flatMap((service) =>
      [SERVICES[service].write, SERVICES[service].encodedWrite].flatMap((path) =>
        Object.entries(CROSS_SITE).map(([how, headers]) => ({ service, path, how, headers })),
      ),
    );
    it.each(cases)('$service POST $path with the cookie, $how: 403', async ({ service, path, headers }) => {
      const cookie = await signIn(service);
      const r = await send(service, { path, body: 'json', headers: { cookie, ...headers } });
      expect(r.status).toBe(403);
      expect(codeOf(r)).toBe('CSRF_CHECK_FAILED');
    });
  });

  describe('what the rule lets through', () => {
    it.each([
      ['gateway', 'no Origin (curl, a server)', {}],
      ['gateway', 'its own origin', { origin: 'http://HOST', 'sec-fetch-site': 'same-origin' }],
      ['gateway', 'an allowed CORS origin', { origin: ALLOWED_ORIGIN, 'sec-fetch-site': 'cross-site' }],
      ['inbox', 'its own origin', { origin: 'http://HOST', 'sec-fetch-site': 'same-origin' }],
      ['inbox', 'its public URL', { origin: ALLOWED_ORIGIN, 'sec-fetch-site': 'same-site' }],
      ['inbox', 'a typed-in request', { 'sec-fetch-site': 'none' }],
    ] as const)('%s sign-in from %s', async (service, _how, headers) => {
      const host = `127.0.0.1:${ports.trusted[service]}`;
      const withHost = Object.fromEntries(
        Object.entries(headers).map(([k, v]) => [k, v.replace('HOST', host)]),
      );
      const cookie = await signIn(service, withHost);
      const write = await send(service, {
        path: SERVICES[service].write,
        body: 'json',
        headers: { cookie, ...SERVICES[service].csrfHeader, ...withHost },
      });
      expect([200, 201]).toContain(write.status);
    });

    it('the gateway takes form sign-ins without Origin, as curl sends them', async () => {
      const r = await send('gateway', { path: '/api/auth', body: 'form' });
      expect(r.status).toBe(200);
      expect(sessionCookie(r.headers)).toMatch(/^portcullis_session=/);
    });
  });

  describe('Secure behind a TLS proxy, from trusted proxies only', () => {
    it.each([
      ['gateway', 'trusted', true],
      ['inbox', 'trusted', true],
      ['gateway', 'untrusted', false],
      ['inbox', 'untrusted', false],
    ] as const)('%s, X-Forwarded-Proto: https from a %s peer: Secure %s', async (service, pair, secure) => {
      const r = await send(
        service,
        {
          path: SERVICES[service].signIn,
          body: 'json',
          headers: { 'x-forwarded-proto': 'https', ...SERVICES[service].csrfHeader },
        },
        pair,
      );
      expect(r.status).toBe(200);
      const setCookie = String(r.headers['set-cookie']);
      expect(setCookie).toMatch(/^portcullis_session=/);
      expect(/;\s*Secure/i.test(setCookie)).toBe(secure);
    });
  });

  it('a new gateway sign-in ends the session the client presented, on both services', async () => {
    const first = await signIn('gateway');
    const second = await signIn('gateway', { cookie: first });
    expect(second).not.toBe(first);
    const old = await send('gateway', { path: '/api/test', method: 'GET', headers: { cookie: first } });
    expect(old.status).toBe(401);
    const inInbox = await send('inbox', { path: '/api/session', method: 'GET', headers: { cookie: first } });
    expect(inInbox.json).toEqual({ account: null });
    const current = await send('gateway', { path: '/api/test', method: 'GET', headers: { cookie: second } });
    expect(current.status).toBe(200);
  });
});
