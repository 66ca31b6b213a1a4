import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { checkNewAccount, createAccountId, foldUsername, isValidUsername } from './account-rules.js';
import { checkPassword } from './credential-check.js';
import { AccountsBackendError, UsernameTakenError } from './errors.js';
import { encodeListCursor, resolveListOptions } from './list-cursor.js';
import type { PasswordHasher } from './password-hasher.js';
import type { Account, AccountStore, Clock } from './types.js';

export interface FileAccountStoreOptions {
  /** The JSON file; created (mode 0600, with its folder) by the first account. */
  file: string;
  hasher: PasswordHasher;
  now?: Clock;
}

interface StoredAccount extends Account {
  passwordHash: string;
}

/**
 * Accounts in one JSON file, for local mode without Redis: they outlive a restart, and another process (the
 * `create-user` script) may add one while a service runs, since every call reads the file again. Writes
 * replace the file in one rename and are serialised in this process; two processes writing at the same
 * moment may lose one write, which is why this store is for one machine's trials, never a deployment.
 */
export function createFileAccountStore(o: FileAccountStoreOptions): AccountStore {
  const now = o.now ?? Date.now;
  let writes: Promise<unknown> = Promise.resolve();

  const load = async (): Promise<StoredAccount[]> => {
    let text: string;
    try {
      text = await readFile(o.file, 'utf8');
    } catch (err: unknown) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw new AccountsBackendError(`${o.file}: not readable`, { cause: err });
    }
    try {
      return (JSON.parse(text) as { accounts: StoredAccount[] }).accounts;
    } catch (err: unknown) {
      throw new AccountsBackendError(`${o.file}: not an accounts file (JSON with "accounts")`, {
        cause: err,
      });
    }
  };
  /** Runs `change` on the current accounts, after the writes queued before it, and saves what it returns. */
  const update = <T>(change: (accounts: StoredAccount[]) => [StoredAccount[], T]): Promise<T> => {
    const run = writes.then(async () => {
      const [next, result] = change(await load());
      await mkdir(dirname(o.file), { recursive: true, mode: 0o700 });
      const staged = `${o.file}.${process.pid}.tmp`;
      await writeFile(staged, `${JSON.stringify({ accounts: next }, null, 2)}\n`, { mode: 0o600 });
      await rename(staged, o.file);
      return result;
    });
    writes = run.catch(() => undefined);
    return run;
  };
  const find = (accounts: StoredAccount[], username: string): StoredAccount | undefined => {
    if (!isValidUsername(username)) return undefined;
    const folded = foldUsername(username);
    return accounts.find((a) => foldUsername(a.username) === folded);
  };

  return {
    async createUser(input) {
      const folded = checkNewAccount(input);
      const passwordHash = await o.hasher.hash(input.password);
      return update((accounts) => {
        if (accounts.some((a) => foldUsername(a.username) === folded)) throw new UsernameTakenError();
        const account: Account = {
          id: createAccountId(),
          username: input.username,
          createdAt: new Date(now()).toISOString(),
        };
        return [[...accounts, { ...account, passwordHash }], account];
      });
    },
    async verifyCredentials(username, password) {
      const stored = find(await load(), username);
      const check = await checkPassword(o.hasher, password, stored?.passwordHash);
      if (!stored || !check.ok) return undefined;
      const rehash = check.rehash;
      if (rehash !== undefined) {
        await update((accounts) => [
          accounts.map((a) =>
            a.id === stored.id && a.passwordHash === stored.passwordHash ? { ...a, passwordHash: rehash } : a,
          ),
          undefined,
        ]);
      }
      return toAccount(stored);
    },
    async getById(id) {
      const stored = (await load()).find((a) => a.id === id);
      return stored && toAccount(stored);
    },
    async list(options) {
      const { limit, after } = resolveListOptions(options);
      const sorted = (await load())
        .map((a) => ({ folded: foldUsername(a.username), a }))
        .filter(({ folded }) => after === undefined || folded > after)
        .sort((x, y) => (x.folded < y.folded ? -1 : 1));
      const page = sorted.slice(0, limit);
      const last = page.at(-1);
      return {
        accounts: page.map(({ a }) => toAccount(a)),
        nextCursor: sorted.length > limit && last !== undefined ? encodeListCursor(last.folded) : undefined,
      };
    },
    deleteUser(id) {
      return update((accounts) => {
        const kept = accounts.filter((a) => a.id !== id);
        return [kept, kept.length < accounts.length];
      });
    },
  };
}

function toAccount(s: StoredAccount): Account {
  return { id: s.id, username: s.username, createdAt: s.createdAt };
}
