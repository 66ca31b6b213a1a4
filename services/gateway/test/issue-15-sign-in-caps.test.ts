import { createScryptHasher, type PasswordHasher } from '@portcullis/accounts';
import { afterEach, describe, expect, it } from 'vitest';
import { startGatewayHarness, type GatewayHarness } from './harness.js';

// Issue 15, finding 7: without a ratelimit service, sign-in was unlimited at about a CPU-second per attempt.

const MID_MINUTE_MS = Date.UTC(2026, 0, 1, 12, 0, 30);
const FALLBACK_ON = {
  GATEWAY_AUTH: 'jwt',
  GATEWAY_FALLBACK_SIGN_IN_PER_ADDRESS_PER_MINUTE: '10',
  GATEWAY_FALLBACK_SIGN_IN_PER_USERNAME_PER_MINUTE: '5',
};
// cheap scrypt: the limits are under test, not the hash; a clock stopped mid-minute keeps one window
const deps = { passwordHasher: createScryptHasher({ ln: 10 }), now: () => MID_MINUTE_MS };

describe('issue 15: sign-in limits without a ratelimit service', () => {
  let g: GatewayHarness | undefined;
  afterEach(async () => {
    await g?.close();
    g = undefined;
  });

  const signIn = (username: string, password: string) =>
    g!.request('POST', '/api/auth', { body: { username, password } });

  it.each([
    ['unreachable (failure mode allow)', '127.0.0.1:1'],
    ['not configured (none)', 'none'],
  ])('counts per user name in process when the service is %s', async (_name, target) => {
    g = await startGatewayHarness({ ...FALLBACK_ON, GATEWAY_RATELIMIT_URL: target }, deps);
    await g.app.backend.accounts.createUser({ username: 'alice', password: 'correct horse' });
    for (let i = 0; i < 5; i++)
      expect((await signIn(i % 2 ? 'ALICE' : 'alice', `guess ${i}`)).status).toBe(401);
    const refused = await signIn('alice', 'correct horse');
    expect(refused.status).toBe(429);
    expect(refused.body).toMatchObject({ code: 'RATE_LIMITED' });
    expect(refused.headers.get('retry-after')).toBe('30');
    expect(refused.headers.get('ratelimit-limit')).toBe('5');
  });

  it('counts per address: the eleventh sign-in from one address in a minute is refused', async () => {
    g = await startGatewayHarness({ ...FALLBACK_ON, GATEWAY_RATELIMIT_URL: 'none' }, deps);
    await g.app.backend.accounts.createUser({ username: 'bob', password: 'battery staple' });
    for (let i = 0; i < 10; i++) expect((await signIn(`user${i}`, 'wrong')).status).toBe(401);
    const refused = await signIn('bob', 'battery staple');
    expect(refused.status).toBe(429);
    expect(refused.headers.get('ratelimit-limit')).toBe('10');
  });

  it('holds at most GATEWAY_FALLBACK_MAX_KEYS counters, counting early evictions on /metrics', async () => {
    g = await startGatewayHarness(
      { ...FALLBACK_ON, GATEWAY_RATELIMIT_URL: 'none', GATEWAY_FALLBACK_MAX_KEYS: '2' },
      deps,
    );
    // the address's counter and alice's fill it; bob's pushes out the oldest, still in its window
    expect((await signIn('alice', 'wrong')).status).toBe(401);
    expect((await signIn('bob', 'wrong')).status).toBe(401);
    const metrics = await fetch(`${g.url}/metrics`).then((r) => r.text());
    expect(metrics).toMatch(
      /^portcullis_gateway_fallback_limiter_evictions_total\{component="gateway"\} 1$/m,
    );
  });

  it('answers 503 with Retry-After at once, without hashing, when every password check slot and queue place is taken', async () => {
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
    g = await startGatewayHarness(
      {
        GATEWAY_AUTH: 'jwt',
        GATEWAY_PASSWORD_CHECKS_MAX_CONCURRENT: '1',
        GATEWAY_PASSWORD_CHECKS_MAX_QUEUED: '1',
      },
      { passwordHasher: held },
    );
    await g.app.backend.accounts.createUser({ username: 'carol', password: 'open sesame' });
    const running = signIn('carol', 'open sesame');
    const queued = signIn('carol', 'open sesame');
    while (verifies < 1) await new Promise((r) => setTimeout(r, 5));
    const busy = await signIn('carol', 'open sesame');
    expect(busy.status).toBe(503);
    expect(busy.body).toMatchObject({ code: 'PASSWORD_CHECKS_BUSY' });
    expect(busy.headers.get('retry-after')).toBe('1');
    expect(verifies).toBe(1);
    while (release.length > 0 || verifies < 2) {
      release.shift()?.();
      await new Promise((r) => setTimeout(r, 5));
    }
    release.shift()?.();
    expect((await running).status).toBe(200);
    expect((await queued).status).toBe(200);
  });
});
