import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
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

  it('without REDIS_URL writes the accounts file of local mode and says so; --roles needs Redis', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'create-user-'));
    const accountsFile = join(dir, 'accounts.json');
    try {
      const env = { PORTCULLIS_PASSWORD: 'correct horse battery', GATEWAY_ACCOUNTS_FILE: accountsFile };
      const run = await runCreateUser(['someone'], env);
      expect(run).toMatchObject({
        code: 0,
        stderr: `someone saved in ${accountsFile} (no REDIS_URL: the accounts file of npm start's gateway); sign in at POST /api/auth\n`,
      });
      const backend = createAccountsBackend({ accountsFile, hasher: createTestHasher().hasher });
      expect(await backend.accounts.verifyCredentials('someone', 'correct horse battery')).toMatchObject({
        id: run.stdout.trim(),
      });
      const withRoles = await runCreateUser(['other', '--roles', 'admin'], env);
      expect(withRoles.code).toBe(2);
      expect(withRoles.stderr).toContain('--roles needs REDIS_URL');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
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
