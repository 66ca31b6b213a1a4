import { startRedis, type RedisServer } from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGatewayHarness, type GatewayHarness } from './harness.js';

describe('sessions shared through Redis', () => {
  let redis: RedisServer;
  let a: GatewayHarness;
  let b: GatewayHarness;

  beforeAll(async () => {
    redis = await startRedis();
    const env = {
      GATEWAY_AUTH: 'session',
      REDIS_URL: `redis://${redis.address}`,
      GATEWAY_SESSION_KEYS: 'a-session-key-that-is-long-enough-0123456789',
    };
    a = await startGatewayHarness(env);
    b = await startGatewayHarness(env);
    await a.app.backend.accounts.createUser({ username: 'carol', password: 'open sesame' });
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await redis.stop();
  });

  it('signs in on one replica and is recognised by another, until signed out there', async () => {
    const login = await a.request('POST', '/api/auth', {
      body: { username: 'carol', password: 'open sesame' },
    });
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
});
