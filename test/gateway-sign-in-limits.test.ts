import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { quietLog as log } from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type GatewayApp, loadSettings as loadGatewaySettings } from '@portcullis/gateway';
import { createRuntimeRoot, startHarness, type Harness } from '../services/ratelimit/test/harness.js';

// POST /auth asks the real rate-limit service (domain gateway-auth) before it checks the password: per
// client address and per user name, as examples/resources/ratelimit-gateway-auth.yaml sets them.

const LIMITS = `domain: gateway-auth
descriptors:
  - key: action
    value: sign_in
    descriptors:
      - key: remote_address
        rate_limit: {unit: minute, requests_per_unit: 4}
      - key: username
        rate_limit: {unit: minute, requests_per_unit: 2}
`;

const MID_MINUTE_MS = Date.UTC(2026, 0, 1, 12, 0, 30);

describe('gateway sign-in limits through the rate-limit service', () => {
  let dir: string;
  let ratelimit: Harness;
  let gateway: GatewayApp;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'gateway-sign-in-'));
    // a clock stopped mid-minute: the per-minute windows cannot roll over while a slow machine hashes passwords
    const at = { ...(await createRuntimeRoot({ 'gateway-auth.yaml': LIMITS })), now: () => MID_MINUTE_MS };
    ratelimit = await startHarness({}, {}, at);
    gateway = await startGateway(
      loadGatewaySettings({
        GATEWAY_HOST: '127.0.0.1',
        GATEWAY_PORT: '0',
        GATEWAY_AUTH: 'jwt',
        GATEWAY_STATE_DIR: join(dir, 'state'),
        GATEWAY_RATELIMIT_URL: `127.0.0.1:${ratelimit.app.ports.grpc}`,
      }),
      { log },
    );
    await gateway.backend.accounts.createUser({ username: 'alice', password: 'correct horse' });
    await gateway.backend.accounts.createUser({ username: 'bob', password: 'battery staple' });
  });
  afterAll(async () => {
    await gateway.close();
    await ratelimit.close();
    await rm(dir, { recursive: true, force: true });
  });

  const signIn = (username: string, password: string) =>
    fetch(`http://127.0.0.1:${gateway.port}/api/auth`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username, password }),
    });

  it('refuses a user name past its limit, right password or not, and then the address', async () => {
    expect((await signIn('alice', 'guess 1')).status).toBe(401);
    expect((await signIn('ALICE', 'guess 2')).status).toBe(401); // one name, whatever its case
    const refused = await signIn('alice', 'correct horse');
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({ code: 'RATE_LIMITED' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.headers.get('ratelimit-limit')).toBe('2');

    // another name from the same address: the address allows four a minute
    const bob = await signIn('bob', 'battery staple');
    expect(bob.status).toBe(200);
    expect(bob.headers.get('ratelimit-remaining')).toBe('0');
    expect((await signIn('bob', 'battery staple')).status).toBe(429);
  });
});
