import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayHarness, type GatewayHarness } from './harness.js';

const CREDENTIALS = { username: 'mona', password: 'correct horse' };

/** Refresh-token and API-key outcomes, as a running gateway's `/metrics` shows them. */
describe('gateway credential metrics', () => {
  let g: GatewayHarness;
  let clock = Date.now();

  beforeAll(async () => {
    g = await startGatewayHarness(
      {
        GATEWAY_AUTH: 'jwt',
        GATEWAY_JWT_SECRET: 'm'.repeat(48),
        GATEWAY_JWT_TTL: '5m',
        GATEWAY_REFRESH_TOKENS: 'body',
        GATEWAY_REFRESH_TTL: '1h',
      },
      { now: () => clock },
    );
    await g.app.backend.accounts.createUser(CREDENTIALS);
  });
  afterAll(async () => {
    await g.close();
  });

  /** `result` → value of each line of `name`, as scraped. */
  const scrape = async (name: string): Promise<Record<string, number>> => {
    const text = String((await g.request('GET', '/metrics')).body);
    const counts: Record<string, number> = {};
    for (const line of text.split('\n')) {
      const m = new RegExp(`^${name}\\{(.*)\\} (\\d+)$`).exec(line);
      const result = /result="([^"]*)"/.exec(m?.[1] ?? '')?.[1];
      if (m?.[2] !== undefined && result !== undefined) counts[result] = Number(m[2]);
    }
    return counts;
  };

  it('exports every result at 0 before the first use', async () => {
    expect(await scrape('portcullis_gateway_refresh_tokens_total')).toEqual({
      rotated: 0,
      reused: 0,
      invalid: 0,
    });
    expect(await scrape('portcullis_gateway_api_key_authentications_total')).toEqual({
      accepted: 0,
      unknown: 0,
      expired: 0,
      revoked: 0,
    });
  });

  it('counts refresh tokens rotated, reused (the family revoked) and invalid', async () => {
    const refresh = (token: unknown) =>
      g.request('POST', '/api/auth', { body: { grant_type: 'refresh_token', refresh_token: token } });
    const first = (await g.request('POST', '/api/auth', { body: CREDENTIALS })).body as {
      refresh_token: string;
    };
    expect((await refresh(first.refresh_token)).status).toBe(200);
    expect((await refresh(first.refresh_token)).body).toMatchObject({ code: 'REFRESH_TOKEN_REUSED' });
    expect((await refresh('garbage')).body).toMatchObject({ code: 'REFRESH_TOKEN_INVALID' });
    expect((await refresh(`rt.${randomUUID()}.${'a'.repeat(43)}`)).status).toBe(401);
    expect(await scrape('portcullis_gateway_refresh_tokens_total')).toEqual({
      rotated: 1,
      reused: 1,
      invalid: 2,
    });
  });

  it('counts API keys accepted, unknown, expired and revoked, sending no key uncounted', async () => {
    const app = await g.app.apps.createApp({ name: 'metered', roles: [] });
    const live = await g.app.apps.createKey(app.id, { name: 'live' });
    const revoked = await g.app.apps.createKey(app.id, { name: 'revoked' });
    const expiring = await g.app.apps.createKey(app.id, {
      name: 'expiring',
      expiresAt: new Date(clock + 60_000).toISOString(),
    });
    if (!live || !revoked || !expiring) throw new Error('no application');
    await g.app.apps.revokeKey(app.id, revoked.info.id);
    const call = (key?: string) =>
      g.request('GET', '/api/test', key === undefined ? {} : { headers: { 'x-api-key': key } });
    expect((await call(live.key)).status).toBe(200);
    expect((await call(live.key)).status).toBe(200);
    expect((await call(expiring.key)).status).toBe(200);
    clock += 120_000;
    expect((await call(expiring.key)).status).toBe(401);
    expect((await call(revoked.key)).status).toBe(401);
    expect((await call('pck_not-a-key')).status).toBe(401);
    expect((await call()).status).toBe(401);
    expect(await scrape('portcullis_gateway_api_key_authentications_total')).toEqual({
      accepted: 3,
      unknown: 1,
      expired: 1,
      revoked: 1,
    });
  });
});
