import { runHackScript, startRedis, type RedisServer } from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Example } from '../src/handlers/example.js';
import { startGatewayHarness } from './harness.js';

const ADMIN = 'an-admin-token-that-is-long-enough-0123456789';
const run = (args: string[], env: Record<string, string>) => runHackScript('create-user.ts', args, env);

describe('hack/create-user.ts --roles', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis.stop();
  });

  it('creates a user with gateway roles a route with roles admits, as the admin API would set them', async () => {
    const env = { REDIS_URL: redis.address, PORTCULLIS_PASSWORD: 'correct horse battery' };
    const created = await run(['reporter-rita', '--roles', 'reporter,auditor,reporter'], env);
    expect(created).toMatchObject({ code: 0, stderr: '' });
    const id = created.stdout.trim();
    const plain = await run(['plain-pat'], env);
    expect(plain.code).toBe(0);
    const g = await startGatewayHarness(
      { GATEWAY_AUTH: 'jwt', GATEWAY_ADMIN_TOKEN: ADMIN, REDIS_URL: `redis://${redis.address}` },
      { routes: [['GET', 'reports', Example, 'test', { roles: ['auditor'] }]] },
    );
    try {
      expect(await g.app.apps.userRoles(id)).toEqual(['reporter', 'auditor']);
      const reports = async (username: string) => {
        const signIn = await g.request('POST', '/api/auth', {
          body: { username, password: 'correct horse battery' },
        });
        const { jwt } = signIn.body as { jwt: string };
        return (await g.request('GET', '/api/reports', { headers: { authorization: `Bearer ${jwt}` } }))
          .status;
      };
      expect(await reports('reporter-rita')).toBe(200);
      expect(await reports('plain-pat')).toBe(403);
      // the admin API reads and replaces what the script set: one store
      const put = await g.request('PUT', `/admin/users/${id}/roles`, {
        body: { roles: ['reporter'] },
        headers: { authorization: `Bearer ${ADMIN}` },
      });
      expect(put.body).toEqual({ id, roles: ['reporter'] });
      expect(await reports('reporter-rita')).toBe(403);
    } finally {
      await g.close();
    }
  });

  it('refuses bad roles with exit code 2 before creating anything', async () => {
    const env = { REDIS_URL: redis.address, PORTCULLIS_PASSWORD: 'correct horse battery' };
    const bad = await run(['bad-roles', '--roles', 'a b'], env);
    expect(bad).toEqual({
      code: 2,
      stdout: '',
      stderr: 'roles: a list of at most 32 names of 1-64 characters from A-Z a-z 0-9 _ . : -\n',
    });
    // the name is still free: nothing was created
    expect((await run(['bad-roles'], env)).code).toBe(0);
    expect((await run(['x', '--role', 'a'], env)).code).toBe(2);
  });
});
