import { createScryptHasher, type PasswordHasher } from '@portcullis/accounts';
import { afterEach, describe, expect, it } from 'vitest';
import { startInboxHarness, type InboxHarness } from './harness.js';

// Issue 15: without a ratelimit service, sign-in and anonymous endpoint creation were unlimited (finding 7,
// and 9's endpoint creation); the memory store had no bound across endpoints (finding 9).

const MID_MINUTE_MS = Date.UTC(2026, 0, 1, 12, 0, 30);
const FALLBACK_DEFAULTS = {
  INBOX_FALLBACK_CREATE_ENDPOINT_PER_MINUTE: '10',
  INBOX_FALLBACK_SIGN_UP_PER_HOUR: '20',
  INBOX_FALLBACK_SIGN_IN_PER_ADDRESS_PER_MINUTE: '10',
  INBOX_FALLBACK_SIGN_IN_PER_USERNAME_PER_MINUTE: '5',
};
const JSON_CSRF = { 'content-type': 'application/json', 'x-inbox-csrf': '1' };

describe('issue 15: inbox limits without a ratelimit service, and memory bounds', () => {
  let h: InboxHarness | undefined;
  afterEach(async () => {
    await h?.close();
    h = undefined;
  });

  const metrics = async (): Promise<string> => (await h!.send('GET', '/metrics')).body.toString();

  it('refuses the eleventh anonymous endpoint a minute from one address with 429', async () => {
    // a clock stopped mid-minute: the window cannot roll over during the test
    h = await startInboxHarness(FALLBACK_DEFAULTS, { now: () => MID_MINUTE_MS });
    for (let i = 0; i < 10; i++) expect((await h.api('POST', '/api/endpoints')).status).toBe(201);
    const refused = await h.api('POST', '/api/endpoints');
    expect(refused.status).toBe(429);
    expect(refused.json).toEqual({ error: 'too many requests', code: 'RATE_LIMITED' });
    expect(refused.headers['retry-after']).toBe('30');
    expect(refused.headers['ratelimit-limit']).toBe('10');
  });

  it('refuses sign-in past five a minute for one user name, right password or not', async () => {
    h = await startInboxHarness(FALLBACK_DEFAULTS, { now: () => MID_MINUTE_MS });
    await h.signUp('alice', 'correct horse battery');
    const signIn = (password: string) =>
      h!.send('POST', '/api/session', {
        body: JSON.stringify({ username: 'alice', password }),
        headers: JSON_CSRF,
      });
    for (let i = 0; i < 5; i++) expect((await signIn(`guess ${i}`)).status).toBe(401);
    const refused = await signIn('correct horse battery');
    expect(refused.status).toBe(429);
    expect(refused.headers['ratelimit-limit']).toBe('5');
  });

  it('refuses captures past INBOX_MEMORY_MAX_BYTES with 507, keeps the stored ones, and counts it on /metrics', async () => {
    h = await startInboxHarness({ INBOX_MEMORY_MAX_BYTES: String(3 * 1024) });
    const a = await h.createEndpoint('a');
    const b = await h.createEndpoint('b');
    const body = 'x'.repeat(1000);
    expect((await h.send('POST', `/api/hook/${a.id}`, { body })).status).toBe(200);
    expect((await h.send('POST', `/api/hook/${b.id}`, { body })).status).toBe(200);
    const full = await h.send('POST', `/api/hook/${b.id}`, { body });
    expect(full.status).toBe(507);
    expect(full.json).toEqual({ error: 'the inbox store is full: capture not stored', code: 'STORE_FULL' });
    const listed = await h.api('GET', `/api/endpoints/${a.id}/requests`, { token: a.token });
    expect((listed.json as { requests: unknown[] }).requests).toHaveLength(1);
    const text = await metrics();
    expect(text).toContain('portcullis_inbox_memory_store_full_total{what="capture",component="inbox"} 1\n');
    expect(text).toContain('portcullis_inbox_captures_total{outcome="store_full",component="inbox"} 1\n');
  });

  it('refuses endpoints past INBOX_MEMORY_MAX_ENDPOINTS with 507, counted on /metrics', async () => {
    h = await startInboxHarness({ INBOX_MEMORY_MAX_ENDPOINTS: '2' });
    await h.createEndpoint('a');
    await h.createEndpoint('b');
    const full = await h.api('POST', '/api/endpoints');
    expect(full.status).toBe(507);
    expect(full.json).toMatchObject({ code: 'STORE_FULL' });
    expect(await metrics()).toContain(
      'portcullis_inbox_memory_store_full_total{what="endpoint",component="inbox"} 1\n',
    );
  });

  it('answers sign-in 503 with Retry-After at once, without hashing, when every password check slot and queue place is taken', async () => {
    const release: Array<() => void> = [];
    let verifies = 0;
    const cheap = createScryptHasher({ ln: 10 });
    // holds each verification until the test lets it finish: a slow scrypt, deterministically
    const held: PasswordHasher = {
      hash: (p) => cheap.hash(p),
      verify: async (p, stored) => {
        verifies++;
        await new Promise<void>((resolve) => release.push(resolve));
        return cheap.verify(p, stored);
      },
      needsRehash: (stored) => cheap.needsRehash(stored),
    };
    h = await startInboxHarness(
      { INBOX_PASSWORD_CHECKS_MAX_CONCURRENT: '1', INBOX_PASSWORD_CHECKS_MAX_QUEUED: '0' },
      { passwordHasher: held },
    );
    await h.signUp('carol', 'open sesame 123');
    const signIn = () =>
      h!.send('POST', '/api/session', {
        body: JSON.stringify({ username: 'carol', password: 'open sesame 123' }),
        headers: JSON_CSRF,
      });
    const running = signIn();
    while (verifies < 1) await new Promise((r) => setTimeout(r, 5));
    const busy = await signIn();
    expect(busy.status).toBe(503);
    expect(busy.json).toMatchObject({ code: 'PASSWORD_CHECKS_BUSY' });
    expect(busy.headers['retry-after']).toBe('1');
    expect(verifies).toBe(1);
    release.shift()?.();
    expect((await running).status).toBe(200);
  });
});
