import { freePort, startRateLimitProcess } from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startInboxHarness, type InboxHarness } from './harness.js';

// The real ratelimit service, as its own process: services never import each other.
const CREATE_LIMIT = 3;
const CAPTURE_LIMIT = 4;
const SIGN_IN_LIMIT = 3;
const INBOX_LIMITS = `domain: inbox
descriptors:
  - key: action
    value: create_endpoint
    descriptors:
      - key: remote_address
        rate_limit: { unit: hour, requests_per_unit: ${CREATE_LIMIT} }
  - key: action
    value: capture
    descriptors:
      - key: endpoint
        rate_limit: { unit: hour, requests_per_unit: ${CAPTURE_LIMIT} }
  - key: action
    value: sign_in
    descriptors:
      - key: username
        rate_limit: { unit: hour, requests_per_unit: ${SIGN_IN_LIMIT} }
      - key: remote_address
        rate_limit: { unit: hour, requests_per_unit: 100 }
`;

const header = (h: Record<string, string | string[] | undefined>, name: string): string | undefined => {
  const v = h[name];
  return Array.isArray(v) ? v[0] : v;
};

describe('rate limits through the ratelimit service', () => {
  let rls: Awaited<ReturnType<typeof startRateLimitProcess>>;
  let inbox: InboxHarness;

  beforeAll(async () => {
    rls = await startRateLimitProcess({ 'inbox.yaml': INBOX_LIMITS }, { LOG_LEVEL: 'error' }, 20_000);
    inbox = await startInboxHarness({
      INBOX_RATELIMIT_URL: `127.0.0.1:${rls.ports.grpc}`,
      INBOX_RATELIMIT_TIMEOUT: '2s',
    });
  }, 30_000);
  afterAll(async () => {
    await inbox.close();
    await rls.stop();
  });

  it('refuses the N+1th endpoint creation from one address with 429, Retry-After and RateLimit-*', async () => {
    for (let i = 0; i < CREATE_LIMIT; i++) {
      const r = await inbox.api('POST', '/api/endpoints');
      expect(r.status).toBe(201);
      expect(header(r.headers, 'ratelimit-remaining')).toBe(String(CREATE_LIMIT - 1 - i));
    }
    const r = await inbox.api('POST', '/api/endpoints');
    expect(r.status).toBe(429);
    expect(r.json).toEqual({ error: 'too many requests', code: 'RATE_LIMITED' });
    expect(header(r.headers, 'ratelimit-limit')).toBe(String(CREATE_LIMIT));
    expect(header(r.headers, 'ratelimit-remaining')).toBe('0');
    const reset = Number(header(r.headers, 'ratelimit-reset'));
    expect(reset).toBeGreaterThan(0);
    expect(reset).toBeLessThanOrEqual(3600);
    expect(header(r.headers, 'retry-after')).toBe(String(reset));
  });

  it('limits captures per endpoint: beyond the limit 429 and nothing stored; another endpoint is served', async () => {
    // the creation limit is per address and spent above: these are created in the store directly
    const ids = ['a', 'b'].map((c) => c.repeat(22));
    for (const id of ids) {
      await inbox.app.store.createEndpoint({
        id,
        name: id,
        tokenSha256: 'x'.repeat(64),
        ownerId: '',
        createdAt: new Date().toISOString(),
        retention: { maxRequests: 100, maxAgeMs: 60_000 },
      });
    }
    const [first, second] = ids as [string, string];
    for (let i = 0; i < CAPTURE_LIMIT; i++) {
      expect((await inbox.send('POST', `/api/hook/${first}`, { body: `n=${i}` })).status).toBe(200);
    }
    const r = await inbox.send('POST', `/api/hook/${first}/x`, { body: 'over' });
    expect(r.status).toBe(429);
    expect((r.json as { code: string }).code).toBe('RATE_LIMITED');
    expect(header(r.headers, 'retry-after')).toMatch(/^\d+$/);
    expect(header(r.headers, 'access-control-allow-origin')).toBe('*');
    expect(await inbox.app.store.countCaptures(first)).toBe(CAPTURE_LIMIT);
    expect((await inbox.send('POST', `/api/hook/${second}`, { body: 'ok' })).status).toBe(200);
  });

  const signIn = (username: string, password: string) =>
    inbox.send('POST', '/api/session', {
      body: JSON.stringify({ username, password }),
      headers: { 'content-type': 'application/json', 'x-inbox-csrf': '1' },
    });

  it('counts attempts per user name in any case: over the limit even the right password gets 429', async () => {
    await inbox.signUp('mallory-target', 'the right password');
    for (let i = 0; i < SIGN_IN_LIMIT; i++) {
      const name = i % 2 === 0 ? 'mallory-target' : 'MALLORY-TARGET';
      expect((await signIn(name, `guess ${i}`)).status).toBe(401);
    }
    const r = await signIn('mallory-target', 'the right password');
    expect(r.status).toBe(429);
    expect(header(r.headers, 'retry-after')).toMatch(/^\d+$/);
    expect(r.headers['set-cookie']).toBeUndefined();
    // another name from the same address is still served
    await inbox.signUp('someone-else', 'another password');
    expect((await signIn('someone-else', 'another password')).status).toBe(200);
  });
});

describe('rate limits when the service cannot be asked', () => {
  it('answers 503 with failure mode deny, and serves with allow', async () => {
    const deadPort = await freePort();
    const env = { INBOX_RATELIMIT_URL: `127.0.0.1:${deadPort}`, INBOX_RATELIMIT_TIMEOUT: '500ms' };
    const deny = await startInboxHarness({ ...env, INBOX_RATELIMIT_FAILURE_MODE: 'deny' });
    try {
      const r = await deny.api('POST', '/api/endpoints');
      expect(r.status).toBe(503);
      expect(r.json).toEqual({ error: 'rate limit service unavailable', code: 'RATE_LIMIT_UNAVAILABLE' });
    } finally {
      await deny.close();
    }
    const allow = await startInboxHarness({ ...env, INBOX_RATELIMIT_FAILURE_MODE: 'allow' });
    try {
      const { id } = await allow.createEndpoint();
      expect((await allow.send('POST', `/api/hook/${id}`, { body: 'x' })).status).toBe(200);
    } finally {
      await allow.close();
    }
  });
});
