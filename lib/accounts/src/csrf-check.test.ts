import { describe, expect, it } from 'vitest';
import { checkCsrf, type CsrfPolicy } from './csrf-check.js';
import { CsrfError } from './errors.js';

const POLICY: CsrfPolicy = { cookieName: 's', allowedOrigins: ['https://app.example'] };
const HOST = 'svc.example';
const COOKIE = { cookie: 's=v' };

function verdict(
  headers: Record<string, string>,
  o: { method?: string; setsCookie?: boolean; policy?: CsrfPolicy; http2?: boolean } = {},
): string {
  const host = { [o.http2 ? ':authority' : 'host']: HOST };
  try {
    checkCsrf({ method: o.method ?? 'POST', headers: { ...host, ...headers } }, o.policy ?? POLICY, {
      setsCookie: o.setsCookie ?? false,
    });
    return 'pass';
  } catch (err: unknown) {
    if (!(err instanceof CsrfError)) throw err;
    return err.message;
  }
}

describe('checkCsrf', () => {
  it.each([
    ['a cross-site Origin', { ...COOKIE, origin: 'https://evil.example' }, 'cross-origin request refused'],
    ['a null Origin', { ...COOKIE, origin: 'null' }, 'cross-origin request refused'],
    ['a file: Origin', { ...COOKIE, origin: 'file:///x' }, 'cross-origin request refused'],
    [
      'Sec-Fetch-Site: cross-site',
      { ...COOKIE, 'sec-fetch-site': 'cross-site' },
      'cross-site request refused (Sec-Fetch-Site: cross-site)',
    ],
    [
      'Sec-Fetch-Site: same-site from its own host',
      { ...COOKIE, 'sec-fetch-site': 'same-site', origin: `https://${HOST}` },
      'cross-site request refused (Sec-Fetch-Site: same-site)',
    ],
  ])('refuses a cookie write with %s', (_how, headers, message) => {
    expect(verdict(headers)).toBe(message);
  });

  it.each([
    ['no cookie and no sign-in', { origin: 'https://evil.example' }, {}],
    ['a safe method', { ...COOKIE, origin: 'https://evil.example' }, { method: 'GET' }],
    ['no Origin nor Sec-Fetch-Site (curl)', COOKIE, {}],
    ['its own host', { ...COOKIE, origin: `https://${HOST}`, 'sec-fetch-site': 'same-origin' }, {}],
    [
      'an allowed origin, cross-site',
      { ...COOKIE, origin: 'https://app.example', 'sec-fetch-site': 'cross-site' },
      {},
    ],
    ['a typed-in request', { ...COOKIE, 'sec-fetch-site': 'none' }, {}],
  ])('lets through %s', (_how, headers, o) => {
    expect(verdict(headers, o)).toBe('pass');
  });

  it('takes HTTP/2’s :authority for the host, which has no Host header', () => {
    expect(verdict({ ...COOKIE, origin: `https://${HOST}` }, { http2: true })).toBe('pass');
    expect(verdict({ ...COOKIE, origin: 'https://evil.example' }, { http2: true })).toBe(
      'cross-origin request refused',
    );
  });

  it('checks a sign-in without a cookie (login CSRF)', () => {
    expect(verdict({ origin: 'https://evil.example' }, { setsCookie: true })).toBe(
      'cross-origin request refused',
    );
  });

  it('requires the policy header, when there is one, of every checked write', () => {
    const policy = { ...POLICY, requiredHeader: 'x-csrf' };
    expect(verdict(COOKIE, { policy })).toBe('the x-csrf header is required with the sign-in cookie');
    expect(verdict({ ...COOKIE, 'x-csrf': '' }, { policy })).toBe(
      'the x-csrf header is required with the sign-in cookie',
    );
    expect(verdict({ ...COOKIE, 'x-csrf': '1' }, { policy })).toBe('pass');
    expect(verdict({}, { policy })).toBe('pass');
  });
});
