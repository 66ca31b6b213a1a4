import { createAccountsBackend } from '@portcullis/accounts';
import { runHackScript, startRedis, type RedisServer } from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestHasher } from './behaviour-suite.js';

const runCreateUser = (args: string[], env: Record<string, string>) =>
  runHackScript('create-user.ts', args, env);

describe('hack/create-user.ts', () => {
  let redis: RedisServer;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis.stop();
  });

  it('creates the account in REDIS_URL with the production hash and prints its id; a second run is refused', async () => {
    const env = { REDIS_URL: redis.address, PORTCULLIS_PASSWORD: 'correct horse battery' };
    const first = await runCreateUser(['Admin'], env);
    expect(first).toMatchObject({ code: 0, stderr: '' });
    const id = first.stdout.trim();
    expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);

    const backend = createAccountsBackend({ redisUrl: redis.address, hasher: createTestHasher().hasher });
    try {
      expect(await backend.accounts.verifyCredentials('admin', 'correct horse battery')).toMatchObject({
        id,
      });
    } finally {
      await backend.close();
    }

    const again = await runCreateUser(['admin'], env);
    expect(again).toEqual({ code: 1, stdout: '', stderr: 'USERNAME_TAKEN: user name is taken\n' });
  });

  it('refuses a weak password with exit code 1', async () => {
    const run = await runCreateUser(['weak'], { REDIS_URL: redis.address, PORTCULLIS_PASSWORD: 'short' });
    expect(run).toEqual({
      code: 1,
      stdout: '',
      stderr: 'WEAK_PASSWORD: password must have at least 8 characters\n',
    });
  });

  it('exits 2 without REDIS_URL, saying memory mode is pointless', async () => {
    const run = await runCreateUser(['someone'], { PORTCULLIS_PASSWORD: 'correct horse battery' });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('REDIS_URL is not set: in memory mode the account would vanish');
  });

  it('exits 2 on bad usage or with no password source', async () => {
    const [noName, badName, noPassword] = await Promise.all([
      runCreateUser([], { REDIS_URL: redis.address }),
      runCreateUser(['no spaces'], { REDIS_URL: redis.address }),
      runCreateUser(['someone'], { REDIS_URL: redis.address }),
    ]);
    expect(noName).toEqual({
      code: 2,
      stdout: '',
      stderr: 'usage: npx tsx hack/create-user.ts <username> [--roles a,b]\n',
    });
    expect(badName.code).toBe(2);
    expect(noPassword).toEqual({
      code: 2,
      stdout: '',
      stderr: 'no password: set PORTCULLIS_PASSWORD or run on a terminal\n',
    });
  });
});
