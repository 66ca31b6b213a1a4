import { checkNewAccount, createAccountId, foldUsername, isValidUsername } from './account-rules.js';
import { checkPassword } from './credential-check.js';
import { UsernameTakenError } from './errors.js';
import { encodeListCursor, resolveListOptions } from './list-cursor.js';
import { runAsync } from './run-async.js';
import type { PasswordHasher } from './password-hasher.js';
import type { Account, AccountStore, Clock } from './types.js';

export interface MemoryAccountStoreOptions {
  hasher: PasswordHasher;
  now?: Clock;
}

interface StoredAccount extends Account {
  passwordHash: string;
}

/** Accounts in this process, for local mode and tests: gone when it exits. */
export function createMemoryAccountStore(o: MemoryAccountStoreOptions): AccountStore {
  const now = o.now ?? Date.now;
  const byId = new Map<string, StoredAccount>();
  const idByName = new Map<string, string>();
  const lookup = (username: string): StoredAccount | undefined => {
    if (!isValidUsername(username)) return undefined;
    const id = idByName.get(foldUsername(username));
    return id === undefined ? undefined : byId.get(id);
  };

  return {
    async createUser(input) {
      const folded = checkNewAccount(input);
      if (idByName.has(folded)) throw new UsernameTakenError();
      const passwordHash = await o.hasher.hash(input.password);
      // Checked again: another sign-up of the name may have finished while this one was hashing.
      if (idByName.has(folded)) throw new UsernameTakenError();
      const account: Account = {
        id: createAccountId(),
        username: input.username,
        createdAt: new Date(now()).toISOString(),
      };
      byId.set(account.id, { ...account, passwordHash });
      idByName.set(folded, account.id);
      return account;
    },
    async verifyCredentials(username, password) {
      const stored = lookup(username);
      const check = await checkPassword(o.hasher, password, stored?.passwordHash);
      if (!stored || !check.ok) return undefined;
      const current = byId.get(stored.id);
      if (check.rehash !== undefined && current?.passwordHash === stored.passwordHash) {
        current.passwordHash = check.rehash;
      }
      return toAccount(stored);
    },
    getById(id) {
      return runAsync(() => {
        const stored = byId.get(id);
        return stored && toAccount(stored);
      });
    },
    list(options) {
      return runAsync(() => {
        const { limit, after } = resolveListOptions(options);
        const names = [...idByName.keys()].filter((n) => after === undefined || n > after).sort();
        const page = names.slice(0, limit);
        const accounts = page.flatMap((n) => {
          const stored = byId.get(idByName.get(n) ?? '');
          return stored ? [toAccount(stored)] : [];
        });
        const last = page.at(-1);
        const nextCursor = names.length > limit && last !== undefined ? encodeListCursor(last) : undefined;
        return { accounts, nextCursor };
      });
    },
    deleteUser(id) {
      return runAsync(() => {
        const stored = byId.get(id);
        if (!stored) return false;
        byId.delete(id);
        idByName.delete(foldUsername(stored.username));
        return true;
      });
    },
  };
}

function toAccount(s: StoredAccount): Account {
  return { id: s.id, username: s.username, createdAt: s.createdAt };
}
