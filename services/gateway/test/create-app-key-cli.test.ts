import { redisCli, runHackScript, startRedis, type RedisServer } from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashToken } from '@portcullis/kit';
import { Example } from '../src/handlers/example.js';
import { startGatewayHarness } from './harness.js';

const run = (args: string[], env: Record<string, string>) => runHackScript('create-app-key.ts', args, env);

describe('hack/create-app-key.ts', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis.stop();
  });

  it('creates an application with roles and a key the gateway takes, storing only its hash', async () => {
    const r = await run(['nightly-export', '--roles', 'reporter', '--key-name', 'ci'], {
      REDIS_URL: redis.address,
    });
    expect(r).toMatchObject({ code: 0, stderr: '' });
    const [appId, keyId, key, ...rest] = r.stdout.trim().split(' ');
    expect(rest).toEqual([]);
    expect(key).toMatch(/^pck_[\w-]{43}$/);
    const port = Number(redis.address.split(':')[1]);
    expect(await redisCli(port, 'HGET', `{apps}:key:${hashToken(key ?? '')}`, 'id')).toBe(keyId);
    const g = await startGatewayHarness(
      { GATEWAY_AUTH: 'jwt', REDIS_URL: `redis://${redis.address}` },
      {
        routes: [['GET', 'reports', Example, 'test', { roles: ['reporter'] }]],
      },
    );
    try {
      const res = await g.request('GET', '/api/reports', { headers: { 'x-api-key': key ?? '' } });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ user: { id: `app:${appId}`, username: 'nightly-export' } });
    } finally {
      await g.close();
    }
  });

  it('refuses bad usage, bad roles and a past expiry with exit code 2, and needs REDIS_URL', async () => {
    const env = { REDIS_URL: redis.address };
    expect(await run([], env)).toMatchObject({ code: 2, stdout: '' });
    expect((await run(['x', '--roles', 'a b'], env)).stderr).toContain('roles:');
    expect(await run(['x', '--expires', '2000-01-01T00:00:00Z'], env)).toMatchObject({
      code: 2,
      stderr: 'expiresAt: an ISO 8601 time in the future\n',
    });
    expect((await run(['x'], {})).stderr).toContain('REDIS_URL is not set');
  });
});
