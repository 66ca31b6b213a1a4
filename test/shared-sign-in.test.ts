import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { quietLog as log, startRedis, type RedisServer } from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type GatewayApp, loadSettings as loadGatewaySettings } from '@portcullis/gateway';
import { startInbox, type InboxApp, loadSettings as loadInboxSettings } from '@portcullis/inbox';

// One sign-in for the platform: the gateway (GATEWAY_AUTH=session) and the inbox given the same Redis,
// session keys and cookie name accept each other's session cookies (browsers send a host's cookies to all
// of its ports, and an ingress usually puts both under one host).

const KEY = 'shared-session-key-0123456789abcdef';

describe('gateway and inbox share accounts and the session cookie', () => {
  let redis: RedisServer;
  let dir: string;
  let gateway: GatewayApp;
  let inbox: InboxApp;
  const gw = (path: string, init: RequestInit = {}) => fetch(`http://127.0.0.1:${gateway.port}${path}`, init);
  const ib = (path: string, init: RequestInit = {}) => fetch(`http://127.0.0.1:${inbox.port}${path}`, init);
  const cookieOf = (r: Response): string => (r.headers.get('set-cookie') ?? '').split(';')[0] ?? '';

  beforeAll(async () => {
    redis = await startRedis();
    dir = await mkdtemp(join(tmpdir(), 'shared-sign-in-'));
    gateway = await startGateway(
      loadGatewaySettings({
        GATEWAY_HOST: '127.0.0.1',
        GATEWAY_PORT: '0',
        GATEWAY_AUTH: 'session',
        GATEWAY_SESSION_KEYS: KEY,
        GATEWAY_STATE_DIR: dir,
        REDIS_URL: `redis://${redis.address}`,
      }),
      { log },
    );
    inbox = await startInbox(
      loadInboxSettings({
        INBOX_HOST: '127.0.0.1',
        INBOX_PORT: '0',
        INBOX_SESSION_KEYS: KEY,
        INBOX_WEB_DIR: dir,
        REDIS_URL: `redis://${redis.address}`,
      }),
      { log },
    );
    await gateway.backend.accounts.createUser({ username: 'lin', password: 'correct horse battery' });
  });
  afterAll(async () => {
    await inbox.close();
    await gateway.close();
    await redis.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('a gateway sign-in opens the inbox, whose endpoints then belong to the account', async () => {
    const login = await gw('/api/auth', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'lin', password: 'correct horse battery' }),
    });
    expect(login.status).toBe(200);
    const cookie = cookieOf(login);
    expect(cookie).toMatch(/^portcullis_session=/);
    expect(await (await ib('/api/session', { headers: { cookie } })).json()).toMatchObject({
      account: { username: 'lin' },
    });
    const created = await ib('/api/endpoints', {
      method: 'POST',
      headers: { cookie, 'x-inbox-csrf': '1', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(await created.json()).toMatchObject({ kind: 'account' });
  });

  it('an inbox sign-in opens the gateway, and signing out in the inbox closes both', async () => {
    const login = await ib('/api/session', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-inbox-csrf': '1' },
      body: JSON.stringify({ username: 'LIN', password: 'correct horse battery' }),
    });
    expect(login.status).toBe(200);
    const cookie = cookieOf(login);
    const guarded = await gw('/api/test', { headers: { cookie } });
    expect(guarded.status).toBe(200);
    expect(await guarded.json()).toMatchObject({ user: { username: 'lin' } });
    const out = await ib('/api/session', { method: 'DELETE', headers: { cookie, 'x-inbox-csrf': '1' } });
    expect(out.status).toBe(204);
    expect((await gw('/api/test', { headers: { cookie } })).status).toBe(401);
  });
});
