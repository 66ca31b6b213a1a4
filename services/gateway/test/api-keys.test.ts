import { createMessageCodec, PROTO_FILES } from '@portcullis/protos';
import { freePort, redisCli, startRedis, waitUntil, type RedisServer } from '@portcullis/testing';
import { createSotwServer, type SotwServer } from '@portcullis/xds';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '@portcullis/kit';
import { Example } from '../src/handlers/example.js';
import { API_ROUTE_TYPE } from '../src/router/api-routes.js';
import type { RoutesDefinition } from '../src/router/routes-module.js';
import { quietLog, startGatewayHarness, type GatewayHarness } from './harness.js';

const ADMIN = 'an-admin-token-that-is-long-enough-0123456789';
const PASSWORD = 'open sesame';
const codec = createMessageCodec(PROTO_FILES.portcullisConfig, 'portcullis.config.v1.ApiRoute');

const routes: RoutesDefinition = [
  ['GET', 'test', Example, 'test'],
  ['GET', 'ping', Example, 'ping', { auth: false }],
  ['GET', 'reports', Example, 'test', { roles: ['reporter', 'auditor'] }],
];

function billingApiRoute(): Uint8Array {
  return codec.encode({
    name: 'demo/billing',
    prefix: 'billing',
    createdAt: '2026-11-27T00:00:00Z',
    routes: [
      {
        name: 'invoices',
        method: 'GET',
        path: 'invoices',
        auth: true,
        roles: ['billing'],
        handler: 'Example.test',
      },
    ],
  });
}

interface KeyListing {
  id: string;
  createdAt: string;
  name: string;
  expiresAt?: string;
  revokedAt?: string;
}

describe.each(['memory', 'redis'] as const)('applications and API keys (%s)', (store) => {
  let redis: RedisServer | undefined;
  let xds: SotwServer;
  let g: GatewayHarness;
  let clock = Date.now();
  const admin = { authorization: `Bearer ${ADMIN}` };

  beforeAll(async () => {
    if (store === 'redis') redis = await startRedis();
    xds = createSotwServer({ host: '127.0.0.1', port: await freePort(), log: quietLog });
    xds.setResources(API_ROUTE_TYPE, [{ name: 'demo/billing', value: billingApiRoute() }]);
    await xds.start();
    g = await startGatewayHarness(
      {
        GATEWAY_AUTH: 'jwt',
        GATEWAY_ADMIN_TOKEN: ADMIN,
        GATEWAY_XDS_SERVER_URL: `127.0.0.1:${xds.port}`,
        GATEWAY_XDS_RETRY_INTERVAL: '100ms',
        ...(redis ? { REDIS_URL: `redis://${redis.address}` } : {}),
      },
      { routes, now: () => clock },
    );
    await g.app.backend.accounts.createUser({ username: 'alice', password: PASSWORD });
  });
  afterAll(async () => {
    await g.close();
    await xds.close();
    await redis?.stop();
  });

  async function createApp(name: string, roles: string[]): Promise<string> {
    const r = await g.request('POST', '/admin/apps', { body: { name, roles }, headers: admin });
    expect(r.status).toBe(201);
    return (r.body as { id: string }).id;
  }

  async function createKey(appId: string, body: object): Promise<{ key: string } & KeyListing> {
    const r = await g.request('POST', `/admin/apps/${appId}/keys`, { body, headers: admin });
    expect(r.status).toBe(201);
    return r.body as { key: string } & KeyListing;
  }

  async function userToken(): Promise<string> {
    const r = await g.request('POST', '/api/auth', { body: { username: 'alice', password: PASSWORD } });
    return (r.body as { jwt: string }).jwt;
  }

  it('refuses the admin API without the admin token', async () => {
    expect((await g.request('GET', '/admin/apps')).status).toBe(401);
    const wrong = await g.request('GET', '/admin/apps', { headers: { authorization: 'Bearer nope' } });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toMatchObject({ error: 'admin token required' });
  });

  it('authenticates a key as its application where a route needs auth, and lists keys without secrets', async () => {
    const appId = await createApp('reports-bot', ['reporter']);
    const created = await createKey(appId, { name: 'ci' });
    expect(created.key).toMatch(/^pck_[\w-]{43}$/);
    const r = await g.request('GET', '/api/test', { headers: { 'x-api-key': created.key } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ user: { id: `app:${appId}`, username: 'reports-bot' } });
    const listed = await g.request('GET', `/admin/apps/${appId}/keys`, { headers: admin });
    const { keys } = listed.body as { keys: Array<KeyListing & { createdAt: string }> };
    expect(keys).toEqual([{ id: created.id, appId, name: 'ci', createdAt: created.createdAt }]);
    expect(JSON.stringify(listed.body)).not.toContain(created.key);
    const logout = await g.request('DELETE', '/api/auth', { headers: { 'x-api-key': created.key } });
    expect(logout.status).toBe(400);
    expect(logout.body).toMatchObject({ code: 'INVALID_ARGUMENT' });
    const apps = await g.request('GET', '/admin/apps', { headers: admin });
    const listedApps = (apps.body as { apps: Array<{ id: string }> }).apps;
    expect(listedApps.find((a) => a.id === appId)).toMatchObject({
      name: 'reports-bot',
      roles: ['reporter'],
    });
  });

  it('answers 401 for an unknown key even on an open route, with the ApiKey challenge', async () => {
    const r = await g.request('GET', '/api/ping', { headers: { 'x-api-key': 'pck_not-a-key' } });
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ error: 'API key not valid', code: 'UNAUTHENTICATED' });
    expect(r.headers.get('www-authenticate')).toBe('ApiKey realm="api", header="x-api-key"');
  });

  it('refuses a key once revoked, and 404s for an unknown key or application', async () => {
    const appId = await createApp('revoked-bot', []);
    const { key, id } = await createKey(appId, { name: 'old' });
    expect((await g.request('GET', '/api/test', { headers: { 'x-api-key': key } })).status).toBe(200);
    const revoke = await g.request('DELETE', `/admin/apps/${appId}/keys/${id}`, { headers: admin });
    expect(revoke.status).toBe(204);
    const r = await g.request('GET', '/api/test', { headers: { 'x-api-key': key } });
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ error: 'API key revoked' });
    const listed = await g.request('GET', `/admin/apps/${appId}/keys`, { headers: admin });
    expect((listed.body as { keys: KeyListing[] }).keys[0]?.revokedAt).toEqual(expect.any(String));
    expect((await g.request('DELETE', `/admin/apps/${appId}/keys/nosuch`, { headers: admin })).status).toBe(
      404,
    );
    expect(
      (await g.request('POST', '/admin/apps/nosuch/keys', { body: { name: 'x' }, headers: admin })).status,
    ).toBe(404);
  });

  it('refuses a key after its expiry', async () => {
    const appId = await createApp('expiring-bot', []);
    const expiresAt = new Date(clock + 3_600_000).toISOString();
    const { key } = await createKey(appId, { name: 'hour', expiresAt });
    expect((await g.request('GET', '/api/test', { headers: { 'x-api-key': key } })).status).toBe(200);
    clock += 3_600_000;
    const r = await g.request('GET', '/api/test', { headers: { 'x-api-key': key } });
    expect(r.status).toBe(401);
    expect(r.body).toMatchObject({ error: 'API key expired' });
    const past = await g.request('POST', `/admin/apps/${appId}/keys`, {
      body: { name: 'past', expiresAt: new Date(clock - 1000).toISOString() },
      headers: admin,
    });
    expect(past.status).toBe(400);
  });

  it("refuses null where a field may only be absent: roles of an application, a key's expiry", async () => {
    // found by Schemathesis against the admin API's document: both were taken as absent
    const app = await g.request('POST', '/admin/apps', { body: { name: 'n', roles: null }, headers: admin });
    expect([app.status, app.body]).toMatchObject([400, { code: 'INVALID_ARGUMENT' }]);
    const appId = await createApp('null-bot', []);
    const key = await g.request('POST', `/admin/apps/${appId}/keys`, {
      body: { name: 'k', expiresAt: null },
      headers: admin,
    });
    expect([key.status, key.body]).toEqual([
      400,
      { error: 'expiresAt: an ISO 8601 time in the future', code: 'INVALID_ARGUMENT' },
    ]);
  });

  it('admits to a role route only callers with one of its roles: applications and users', async () => {
    const reporter = await createKey(await createApp('reporter-bot', ['reporter']), { name: 'k' });
    const plain = await createKey(await createApp('plain-bot', ['other']), { name: 'k' });
    expect((await g.request('GET', '/api/reports', { headers: { 'x-api-key': reporter.key } })).status).toBe(
      200,
    );
    const denied = await g.request('GET', '/api/reports', { headers: { 'x-api-key': plain.key } });
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({
      error: 'application plain-bot lacks the role this route needs (one of: reporter, auditor)',
      code: 'FORBIDDEN',
    });
    expect((await g.request('GET', '/api/reports')).status).toBe(401);
    const token = await userToken();
    const bearer = { authorization: `Bearer ${token}` };
    expect((await g.request('GET', '/api/reports', { headers: bearer })).status).toBe(403);
    const alice = (await g.app.backend.accounts.list()).accounts.find((a) => a.username === 'alice');
    const put = await g.request('PUT', `/admin/users/${alice?.id}/roles`, {
      body: { roles: ['auditor'] },
      headers: admin,
    });
    expect(put.body).toEqual({ id: alice?.id, roles: ['auditor'] });
    expect((await g.request('GET', '/api/reports', { headers: bearer })).status).toBe(200);
  });

  it('enforces roles on an ApiRoute received over xDS', async () => {
    await waitUntil(async () => (await g.request('GET', '/api/billing/invoices')).status !== 404);
    const biller = await createKey(await createApp('biller', ['billing']), { name: 'k' });
    const other = await createKey(await createApp('not-biller', ['reporter']), { name: 'k' });
    expect(
      (await g.request('GET', '/api/billing/invoices', { headers: { 'x-api-key': biller.key } })).status,
    ).toBe(200);
    const r = await g.request('GET', '/api/billing/invoices', { headers: { 'x-api-key': other.key } });
    expect(r.status).toBe(403);
    expect((r.body as { error: string }).error).toBe(
      'application not-biller lacks the role this route needs (one of: billing)',
    );
  });

  it.runIf(store === 'redis')(
    'reads only the key record per request once its application is known',
    async () => {
      const { key } = await createKey(await createApp('one-trip-bot', []), { name: 'k' });
      const port = Number(redis!.address.split(':')[1]);
      const hgetalls = async (): Promise<number> => {
        const stats = await redisCli(port, 'INFO', 'commandstats');
        return Number(/cmdstat_hgetall:calls=(\d+)/.exec(stats)?.[1] ?? 0);
      };
      const ping = () => g.request('GET', '/api/ping', { headers: { 'x-api-key': key } });
      expect((await ping()).status).toBe(200);
      const before = await hgetalls();
      for (let i = 0; i < 5; i++) expect((await ping()).status).toBe(200);
      expect((await hgetalls()) - before).toBe(5);
    },
  );

  it.runIf(store === 'redis')('keeps only the SHA-256 of a key in Redis', async () => {
    const { key } = await createKey(await createApp('hashed-bot', []), { name: 'k' });
    const port = Number(redis!.address.split(':')[1]);
    const dump = await redisCli(port, '--scan', '--pattern', '{apps}:*');
    expect(dump).toContain(`{apps}:key:${hashToken(key)}`);
    const secret = key.slice('pck_'.length);
    for (const k of dump.split('\n')) {
      const type = await redisCli(port, 'TYPE', k);
      const value =
        type === 'hash'
          ? await redisCli(port, 'HGETALL', k)
          : type === 'zset'
            ? await redisCli(port, 'ZRANGE', k, '0', '-1')
            : await redisCli(port, 'GET', k);
      expect(`${k}\n${value}`).not.toContain(secret);
    }
  });
});
