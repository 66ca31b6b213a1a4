import { Redis } from 'ioredis';
import { AccountsBackendError, createAccountsBackend } from '@portcullis/accounts';
import { startRedis, type RedisServer } from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestHasher, describeBackend } from './behaviour-suite.js';

let server: RedisServer;
let raw: Redis;
let tests = 0;

beforeAll(async () => {
  server = await startRedis();
  raw = new Redis(server.address);
});
afterAll(async () => {
  await raw.quit();
  await server.stop();
});

// Each test gets its own key prefix on the shared server, so nothing leaks between them.
describeBackend('redis', (hasher) =>
  Promise.resolve(createAccountsBackend({ redisUrl: server.address, prefix: `t${++tests}:`, hasher })),
);

describe('redis data model', () => {
  const password = 'correct horse battery';

  it('keeps accounts under the prefix: a hash per user, a name key and a lex-ordered index', async () => {
    const backend = createAccountsBackend({
      redisUrl: server.address,
      prefix: 'model:',
      hasher: createTestHasher().hasher,
    });
    try {
      const a = await backend.accounts.createUser({ username: 'Alice', password });
      expect(await raw.type(`model:user:${a.id}`)).toBe('hash');
      const fields = await raw.hgetall(`model:user:${a.id}`);
      expect(fields).toEqual({
        ...a,
        passwordHash: expect.stringMatching(/^\$scrypt\$ln=10,r=8,p=1\$/) as string,
      });
      expect(await raw.get('model:username:alice')).toBe(a.id);
      expect(await raw.zrange('model:usernames', 0, -1)).toEqual([`alice ${a.id}`]);
      for (const key of [`model:user:${a.id}`, 'model:username:alice', 'model:usernames']) {
        expect(await raw.pttl(key)).toBe(-1);
      }
      await backend.accounts.deleteUser(a.id);
      expect(await raw.keys('model:*')).toEqual([]);
    } finally {
      await backend.close();
    }
  });

  it('gives session and denylist keys the TTL of what they hold', async () => {
    const backend = createAccountsBackend({ redisUrl: server.address, prefix: 'ttl:' });
    try {
      const s = await backend.sessions.create('acct-1', { ttlSeconds: 120 });
      expect(await raw.hgetall(`ttl:session:${s.id}`)).toEqual({
        accountId: 'acct-1',
        expiresAt: s.expiresAt,
      });
      expect(await raw.pttl(`ttl:session:${s.id}`)).toBeGreaterThan(119_000);
      expect(await raw.pttl(`ttl:session:${s.id}`)).toBeLessThanOrEqual(120_000);
      expect(await raw.zrange('ttl:account-sessions:acct-1', 0, -1)).toEqual([s.id]);
      await backend.sessions.touch(s.id, 600);
      expect(await raw.pttl(`ttl:session:${s.id}`)).toBeGreaterThan(599_000);
      expect(await raw.pttl('ttl:account-sessions:acct-1')).toBeGreaterThan(599_000);

      await backend.denylist.revoke('jti-1', Date.now() / 1000 + 30);
      expect(await raw.get('ttl:revoked:jti-1')).toBe('1');
      expect(await raw.pttl('ttl:revoked:jti-1')).toBeGreaterThan(29_000);
      expect(await raw.pttl('ttl:revoked:jti-1')).toBeLessThanOrEqual(30_000);
    } finally {
      await backend.close();
    }
  });

  it('uses the acct: prefix by default and reads the database from a redis:// URL', async () => {
    const backend = createAccountsBackend({
      redisUrl: `redis://${server.address}/3`,
      hasher: createTestHasher().hasher,
    });
    try {
      expect(backend.kind).toBe('redis');
      const a = await backend.accounts.createUser({ username: 'dbuser', password });
      const db3 = new Redis(`redis://${server.address}/3`);
      expect(await db3.get('acct:username:dbuser')).toBe(a.id);
      await db3.quit();
      expect(await raw.exists('acct:username:dbuser')).toBe(0);
    } finally {
      await backend.close();
    }
  });

  it('reloads its scripts after SCRIPT FLUSH (a restarted or failed-over server)', async () => {
    const backend = createAccountsBackend({
      redisUrl: server.address,
      prefix: 'flush:',
      hasher: createTestHasher().hasher,
    });
    try {
      await backend.accounts.createUser({ username: 'before', password });
      await raw.script('FLUSH');
      await expect(backend.accounts.createUser({ username: 'after', password })).resolves.toBeDefined();
      expect((await backend.accounts.list()).accounts.map((a) => a.username)).toEqual(['after', 'before']);
    } finally {
      await backend.close();
    }
  });

  it('fails with ACCOUNTS_BACKEND_UNAVAILABLE when Redis is gone', async () => {
    const doomed = await startRedis();
    const backend = createAccountsBackend({ redisUrl: doomed.address, prefix: 'gone:' });
    try {
      expect(await backend.denylist.isRevoked('jti-1')).toBe(false);
      await doomed.kill();
      const err = await backend.sessions.get('A'.repeat(43)).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(AccountsBackendError);
      expect((err as AccountsBackendError).code).toBe('ACCOUNTS_BACKEND_UNAVAILABLE');
      expect((err as AccountsBackendError).cause).toBeInstanceOf(Error);
    } finally {
      await backend.close();
    }
  });
});
