// One behaviour suite for every AccountsBackend: the Redis and memory test files run it unchanged.
import {
  InvalidUsernameError,
  UsernameTakenError,
  WeakPasswordError,
  createScryptHasher,
  type AccountsBackend,
  type PasswordHasher,
  type ScryptHasherOptions,
} from '@portcullis/accounts';
import { InvalidArgumentError } from '@portcullis/kit';
import { waitUntil } from '@portcullis/testing';
import { afterEach, describe, expect, it } from 'vitest';

/** A fresh, empty backend using `hasher`; closed by the suite after each test. */
export type MakeBackend = (hasher: PasswordHasher) => Promise<AccountsBackend>;

/** scrypt at test cost whose parameters can change mid-test, counting key derivations. */
export function createTestHasher(options: ScryptHasherOptions = { ln: 10 }) {
  let current = createScryptHasher(options);
  const counts = { hash: 0, verify: 0 };
  const hasher: PasswordHasher = {
    hash(password) {
      counts.hash++;
      return current.hash(password);
    },
    verify(password, stored) {
      counts.verify++;
      return current.verify(password, stored);
    },
    needsRehash: (stored) => current.needsRehash(stored),
  };
  return {
    hasher,
    counts,
    /** Derivations since the last call. */
    takeCount: () => {
      const n = counts.hash + counts.verify;
      counts.hash = counts.verify = 0;
      return n;
    },
    use: (next: ScryptHasherOptions) => (current = createScryptHasher(next)),
  };
}

const password = 'correct horse battery';
const nowSec = (): number => Date.now() / 1000;

export function describeBackend(name: string, makeBackend: MakeBackend): void {
  describe(`${name} accounts backend`, () => {
    const open: AccountsBackend[] = [];
    const setUp = async (hasher = createTestHasher().hasher): Promise<AccountsBackend> => {
      const backend = await makeBackend(hasher);
      open.push(backend);
      return backend;
    };
    afterEach(async () => {
      await Promise.all(open.splice(0).map((b) => b.close()));
    });

    describe('accounts', () => {
      it('creates an account with a random URL-safe id and finds it by id, never exposing the hash', async () => {
        const { accounts } = await setUp();
        const before = Date.now();
        const a = await accounts.createUser({ username: 'Alice', password });
        expect(Object.keys(a).sort()).toEqual(['createdAt', 'id', 'username']);
        expect(a.id).toMatch(/^[A-Za-z0-9_-]{22}$/);
        expect(a.username).toBe('Alice');
        expect(Date.parse(a.createdAt)).toBeGreaterThanOrEqual(before - 1);
        expect(new Date(a.createdAt).toISOString()).toBe(a.createdAt);
        expect(await accounts.getById(a.id)).toEqual(a);
        expect(await accounts.getById('AAAAAAAAAAAAAAAAAAAAAA')).toBeUndefined();
        expect(await accounts.getById('../../etc')).toBeUndefined();
      });

      it('accepts 1-64 characters from [A-Za-z0-9_.@-] and refuses any other name', async () => {
        const { accounts } = await setUp();
        for (const username of ['a', 'x'.repeat(64), 'first.last@example-1_2']) {
          await expect(accounts.createUser({ username, password })).resolves.toMatchObject({ username });
        }
        for (const username of ['', 'y'.repeat(65), 'with space', 'colon:name', 'émile', 'a/b', 'a\nb']) {
          await expect(accounts.createUser({ username, password })).rejects.toBeInstanceOf(
            InvalidUsernameError,
          );
        }
      });

      it('refuses passwords under 8 characters', async () => {
        const { accounts } = await setUp();
        const err = await accounts
          .createUser({ username: 'bob', password: 'seven77' })
          .catch((e: unknown) => e);
        expect(err).toBeInstanceOf(WeakPasswordError);
        expect((err as WeakPasswordError).code).toBe('WEAK_PASSWORD');
        await expect(accounts.createUser({ username: 'bob', password: 'eight888' })).resolves.toBeDefined();
      });

      it('treats names differing only in case as taken', async () => {
        const { accounts } = await setUp();
        await accounts.createUser({ username: 'Alice', password });
        const err = await accounts.createUser({ username: 'aLICE', password }).catch((e: unknown) => e);
        expect(err).toBeInstanceOf(UsernameTakenError);
        expect((err as UsernameTakenError).code).toBe('USERNAME_TAKEN');
      });

      it('lets exactly one of many concurrent sign-ups of one name win', async () => {
        const { accounts } = await setUp();
        const names = ['carol', 'Carol', 'CAROL', 'carol', 'cArol', 'caroL', 'carol', 'CaRoL'];
        const results = await Promise.allSettled(
          names.map((username) => accounts.createUser({ username, password })),
        );
        const won = results.filter((r) => r.status === 'fulfilled');
        const lost = results.flatMap((r) => (r.status === 'rejected' ? [r.reason as unknown] : []));
        expect(won).toHaveLength(1);
        expect(lost).toHaveLength(names.length - 1);
        for (const reason of lost) expect(reason).toBeInstanceOf(UsernameTakenError);
        expect((await accounts.list()).accounts).toHaveLength(1);
      });

      it('verifies credentials with the name in any case; wrong or unknown give undefined', async () => {
        const { accounts } = await setUp();
        const a = await accounts.createUser({ username: 'Dave', password });
        expect(await accounts.verifyCredentials('Dave', password)).toEqual(a);
        expect(await accounts.verifyCredentials('dAVE', password)).toEqual(a);
        expect(await accounts.verifyCredentials('Dave', `${password}!`)).toBeUndefined();
        expect(await accounts.verifyCredentials('nobody', password)).toBeUndefined();
        expect(await accounts.verifyCredentials('not a name', password)).toBeUndefined();
      });

      it('spends one key derivation on an unknown user, as on a wrong password', async () => {
        const t = createTestHasher();
        const { accounts } = await setUp(t.hasher);
        await accounts.createUser({ username: 'erin', password });
        t.takeCount();
        await accounts.verifyCredentials('erin', 'wrong password');
        expect(t.takeCount()).toBe(1);
        await accounts.verifyCredentials('nobody', 'wrong password');
        expect(t.takeCount()).toBe(1);
        await accounts.verifyCredentials('bad name!', 'wrong password');
        expect(t.takeCount()).toBe(1);
      });

      it('re-hashes on a successful login once the parameters changed, and only then', async () => {
        const t = createTestHasher({ ln: 10 });
        const { accounts } = await setUp(t.hasher);
        const a = await accounts.createUser({ username: 'frank', password });
        t.use({ ln: 11 });
        t.takeCount();
        expect(await accounts.verifyCredentials('frank', 'wrong password')).toBeUndefined();
        expect(t.counts).toEqual({ hash: 0, verify: 1 });
        t.takeCount();
        expect(await accounts.verifyCredentials('frank', password)).toEqual(a);
        expect(t.counts).toEqual({ hash: 1, verify: 1 });
        t.takeCount();
        expect(await accounts.verifyCredentials('frank', password)).toEqual(a);
        expect(t.counts).toEqual({ hash: 0, verify: 1 });
        expect(await accounts.verifyCredentials('frank', 'wrong password')).toBeUndefined();
      });

      it('lists accounts by lower-case name, a page at a time', async () => {
        const { accounts } = await setUp();
        for (const username of ['delta', 'Bravo', 'echo', 'alpha', 'Charlie', 'alpha2', 'alph']) {
          await accounts.createUser({ username, password });
        }
        const seen: string[][] = [];
        let cursor: string | undefined;
        do {
          const page = await accounts.list({ limit: 3, ...(cursor === undefined ? {} : { cursor }) });
          for (const a of page.accounts)
            expect(Object.keys(a).sort()).toEqual(['createdAt', 'id', 'username']);
          seen.push(page.accounts.map((a) => a.username));
          cursor = page.nextCursor;
        } while (cursor !== undefined);
        expect(seen).toEqual([['alph', 'alpha', 'alpha2'], ['Bravo', 'Charlie', 'delta'], ['echo']]);
        expect((await accounts.list()).nextCursor).toBeUndefined();
        expect((await accounts.list({ limit: 7 })).nextCursor).toBeUndefined();
        await expect(accounts.list({ limit: 0 })).rejects.toBeInstanceOf(InvalidArgumentError);
        await expect(accounts.list({ cursor: '%%' })).rejects.toBeInstanceOf(InvalidArgumentError);
      });

      it('deletes an account, freeing its name', async () => {
        const { accounts } = await setUp();
        const a = await accounts.createUser({ username: 'Gina', password });
        expect(await accounts.deleteUser(a.id)).toBe(true);
        expect(await accounts.deleteUser(a.id)).toBe(false);
        expect(await accounts.getById(a.id)).toBeUndefined();
        expect(await accounts.verifyCredentials('gina', password)).toBeUndefined();
        expect((await accounts.list()).accounts).toEqual([]);
        const again = await accounts.createUser({ username: 'gina', password: 'another password' });
        expect(again.id).not.toBe(a.id);
        expect(await accounts.verifyCredentials('GINA', 'another password')).toEqual(again);
      });
    });

    describe('sessions', () => {
      it('creates a session with a 256-bit id and reads it back', async () => {
        const { sessions } = await setUp();
        const before = Date.now();
        const s = await sessions.create('acct-1', { ttlSeconds: 60 });
        expect(s.id).toMatch(/^[A-Za-z0-9_-]{43}$/);
        expect(s.accountId).toBe('acct-1');
        expect(Date.parse(s.expiresAt) - before).toBeGreaterThanOrEqual(60_000);
        expect(Date.parse(s.expiresAt) - Date.now()).toBeLessThanOrEqual(60_000);
        expect(await sessions.get(s.id)).toEqual(s);
        expect(await sessions.get('A'.repeat(43))).toBeUndefined();
        expect(await sessions.get('short')).toBeUndefined();
      });

      it('expires a session after its TTL', async () => {
        const { sessions } = await setUp();
        const s = await sessions.create('acct-1', { ttlSeconds: 0.5 });
        expect(await sessions.get(s.id)).toEqual(s);
        await waitUntil(async () => (await sessions.get(s.id)) === undefined, 3000);
        expect(await sessions.touch(s.id, 60)).toBeUndefined();
        expect(await sessions.get(s.id)).toBeUndefined();
      });

      it('slides the expiry on touch', async () => {
        const { sessions } = await setUp();
        const touched = await sessions.create('acct-1', { ttlSeconds: 0.6 });
        const control = await sessions.create('acct-1', { ttlSeconds: 0.6 });
        const after = await sessions.touch(touched.id, 60);
        expect(after).toMatchObject({ id: touched.id, accountId: 'acct-1' });
        expect(Date.parse(after?.expiresAt ?? '')).toBeGreaterThan(Date.now() + 59_000);
        await waitUntil(async () => (await sessions.get(control.id)) === undefined, 3000);
        expect(await sessions.get(touched.id)).toEqual(after);
      });

      it('destroys one session, or every session of an account', async () => {
        const { sessions } = await setUp();
        const one = await sessions.create('acct-1', { ttlSeconds: 60 });
        const two = await sessions.create('acct-1', { ttlSeconds: 60 });
        const three = await sessions.create('acct-1', { ttlSeconds: 60 });
        const other = await sessions.create('acct-2', { ttlSeconds: 60 });
        expect(await sessions.destroy(one.id)).toBe(true);
        expect(await sessions.destroy(one.id)).toBe(false);
        expect(await sessions.get(one.id)).toBeUndefined();
        expect(await sessions.destroyAllFor('acct-1')).toBe(2);
        expect(await sessions.get(two.id)).toBeUndefined();
        expect(await sessions.get(three.id)).toBeUndefined();
        expect(await sessions.get(other.id)).toEqual(other);
        expect(await sessions.destroyAllFor('acct-1')).toBe(0);
      });

      it('refuses a TTL that is not a positive number', async () => {
        const { sessions } = await setUp();
        for (const ttlSeconds of [0, -5, Number.NaN]) {
          await expect(sessions.create('acct-1', { ttlSeconds })).rejects.toBeInstanceOf(
            InvalidArgumentError,
          );
        }
      });
    });

    describe('token denylist', () => {
      it('reports a revoked jti until the token expires, then forgets it', async () => {
        const { denylist } = await setUp();
        await denylist.revoke('jti-long', nowSec() + 3600);
        await denylist.revoke('jti-short', nowSec() + 0.5);
        expect(await denylist.isRevoked('jti-long')).toBe(true);
        expect(await denylist.isRevoked('jti-short')).toBe(true);
        expect(await denylist.isRevoked('jti-other')).toBe(false);
        await waitUntil(async () => !(await denylist.isRevoked('jti-short')), 3000);
        expect(await denylist.isRevoked('jti-long')).toBe(true);
      });

      it('ignores tokens already expired and never shortens an entry', async () => {
        const { denylist } = await setUp();
        await denylist.revoke('jti-past', nowSec() - 1);
        expect(await denylist.isRevoked('jti-past')).toBe(false);
        await denylist.revoke('jti-1', nowSec() + 3600);
        await denylist.revoke('jti-1', nowSec() + 0.2);
        await denylist.revoke('jti-control', nowSec() + 0.2);
        await waitUntil(async () => !(await denylist.isRevoked('jti-control')), 3000);
        expect(await denylist.isRevoked('jti-1')).toBe(true);
      });
    });
  });
}
