import {
  createCertificates,
  redisCli,
  startRedis,
  startRedisCluster,
  startRedisSentinelSet,
  waitFor,
  waitUntil,
} from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayHarness, type GatewayHarness } from './harness.js';

// Accounts and sessions on every Redis the gateway can use (GATEWAY_REDIS_*): Sentinel, Cluster, and a
// server that only speaks TLS and requires a client certificate.

const SESSION_KEYS = 'a-session-key-that-is-long-enough-0123456789';

const DEPLOYMENTS = [
  {
    name: 'Sentinel',
    start: async () => {
      const set = await startRedisSentinelSet();
      return { env: { GATEWAY_REDIS_TYPE: 'sentinel', GATEWAY_REDIS_URL: set.url }, stop: () => set.stop() };
    },
  },
  {
    name: 'Cluster',
    start: async () => {
      const cluster = await startRedisCluster(3);
      return {
        env: { GATEWAY_REDIS_TYPE: 'cluster', GATEWAY_REDIS_URL: cluster.url },
        stop: () => cluster.stop(),
      };
    },
  },
  {
    name: 'TLS with a client certificate',
    start: async () => {
      const certs = await createCertificates();
      const redis = await startRedis({ tls: certs });
      const env = {
        GATEWAY_REDIS_URL: redis.address,
        GATEWAY_REDIS_TLS: 'true',
        GATEWAY_REDIS_TLS_CACERT: certs.caCert,
        GATEWAY_REDIS_TLS_CLIENT_CERT: certs.clientCert,
        GATEWAY_REDIS_TLS_CLIENT_KEY: certs.clientKey,
      };
      return { env, stop: () => redis.stop() };
    },
  },
] as const;

describe.each(DEPLOYMENTS)('gateway sessions on Redis: $name', ({ start }) => {
  let deployment: { env: Record<string, string>; stop(): Promise<void> };
  let a: GatewayHarness;
  let b: GatewayHarness;
  beforeAll(async () => {
    deployment = await start();
    const env = { GATEWAY_AUTH: 'session', GATEWAY_SESSION_KEYS: SESSION_KEYS, ...deployment.env };
    a = await startGatewayHarness(env);
    b = await startGatewayHarness(env);
  }, 60_000);
  afterAll(async () => {
    await a.close();
    await b.close();
    await deployment.stop();
  });

  it('signs in on one replica, is recognised by another, until signed out there', async () => {
    expect(a.app.backend.kind).toBe('redis');
    await a.app.backend.accounts.createUser({ username: 'carol', password: 'open sesame' });
    const login = await a.request('POST', '/api/auth', {
      body: { username: 'carol', password: 'open sesame' },
    });
    expect(login.status).toBe(200);
    const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    expect((await b.request('GET', '/api/test', { headers: { cookie } })).body).toMatchObject({
      user: { username: 'carol' },
    });
    expect((await b.request('GET', '/api/users', { headers: { cookie } })).body).toMatchObject({
      users: [{ name: 'carol' }],
    });
    await b.request('DELETE', '/api/auth', { headers: { cookie } });
    expect((await a.request('GET', '/api/test', { headers: { cookie } })).status).toBe(401);
  });

  it('exposes the connection in /metrics', async () => {
    const r = await a.request('GET', '/metrics');
    expect(String(r.body)).toMatch(/^redis_connections_active\{[^}]*pool="accounts"[^}]*\} 1$/m);
  });
});

describe('gateway sessions across a Sentinel failover', () => {
  it('keeps a session signed in before the master dies, and signs it out on the promoted replica', async () => {
    const set = await startRedisSentinelSet();
    const env = { GATEWAY_AUTH: 'session', GATEWAY_SESSION_KEYS: SESSION_KEYS };
    const h = await startGatewayHarness({
      ...env,
      GATEWAY_REDIS_TYPE: 'sentinel',
      GATEWAY_REDIS_URL: set.url,
    });
    try {
      await h.app.backend.accounts.createUser({ username: 'dora', password: 'open sesame' });
      const login = await h.request('POST', '/api/auth', {
        body: { username: 'dora', password: 'open sesame' },
      });
      const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
      // the session reached the replica before the master goes (WAIT: replicas that acknowledged every write)
      await waitUntil(async () => (await redisCli(set.master.port, 'WAIT', '1', '1000')) === '1');
      await set.master.kill();
      await set.waitForFailover();
      await waitFor(
        async () => (await h.request('GET', '/api/test', { headers: { cookie } })).status,
        (status) => status === 200,
        { timeoutMs: 20_000, what: 'the session answered from the promoted replica' },
      );
      expect((await h.request('GET', '/api/test', { headers: { cookie } })).body).toMatchObject({
        user: { username: 'dora' },
      });
      expect((await h.request('DELETE', '/api/auth', { headers: { cookie } })).status).toBeLessThan(300);
      expect((await h.request('GET', '/api/test', { headers: { cookie } })).status).toBe(401);
    } finally {
      await h.close();
      await set.stop();
    }
  }, 60_000);
});
