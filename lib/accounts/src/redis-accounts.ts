import {
  checkNewAccount,
  createAccountId,
  foldUsername,
  isAccountId,
  isValidUsername,
} from './account-rules.js';
import { checkPassword } from './credential-check.js';
import { UsernameTakenError } from './errors.js';
import { encodeListCursor, resolveListOptions } from './list-cursor.js';
import type { PasswordHasher } from './password-hasher.js';
import { defineScript, type RedisClient } from '@portcullis/redis';
import { callRedis, toFieldMap } from './redis-caller.js';
import type { Account, AccountStore, Clock } from './types.js';

export interface RedisAccountStoreOptions {
  redis: RedisClient;
  /** Every key starts with it, e.g. `acct:`. */
  prefix: string;
  hasher: PasswordHasher;
  now?: Clock;
}

// The name key is the arbiter: SET NX inside the script, so of two sign-ups of one name exactly one writes.
const CREATE = defineScript(`
if not redis.call('SET', KEYS[1], ARGV[1], 'NX') then return 0 end
redis.call('HSET', KEYS[2], 'id', ARGV[1], 'username', ARGV[2], 'createdAt', ARGV[3], 'passwordHash', ARGV[4])
redis.call('ZADD', KEYS[3], 0, ARGV[5])
return 1`);

// Compare-and-set: a password changed since it was read is not overwritten by the re-hash of the old one.
const REHASH = defineScript(`
if redis.call('HGET', KEYS[1], 'passwordHash') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'passwordHash', ARGV[2])
return 1`);

const DELETE = defineScript(`
if redis.call('HGET', KEYS[1], 'id') ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
if redis.call('GET', KEYS[2]) == ARGV[1] then redis.call('DEL', KEYS[2]) end
redis.call('ZREM', KEYS[3], ARGV[2])
return 1`);

/**
 * Accounts in Redis: `<prefix>user:<id>` HASH (id, username, createdAt, passwordHash),
 * `<prefix>username:<folded name>` STRING → id, and `<prefix>usernames` ZSET of `<folded name> <id>` (all
 * scores 0, read by lex range) for listing. No TTLs.
 */
export function createRedisAccountStore(o: RedisAccountStoreOptions): AccountStore {
  const { redis, prefix, hasher } = o;
  const now = o.now ?? Date.now;
  const userKey = (id: string): string => `${prefix}user:${id}`;
  const nameKey = (folded: string): string => `${prefix}username:${folded}`;
  const indexKey = `${prefix}usernames`;

  const read = async (id: string): Promise<Record<string, string> | undefined> =>
    toFieldMap(await callRedis('HGETALL', () => redis.hgetall(userKey(id))));

  return {
    async createUser(input) {
      const folded = checkNewAccount(input);
      // Saves a key derivation when the name is plainly taken; the script below decides races.
      if ((await callRedis('EXISTS', () => redis.exists(nameKey(folded)))) === 1)
        throw new UsernameTakenError();
      const passwordHash = await hasher.hash(input.password);
      const account: Account = {
        id: createAccountId(),
        username: input.username,
        createdAt: new Date(now()).toISOString(),
      };
      const keys = [nameKey(folded), userKey(account.id), indexKey];
      const args = [account.id, account.username, account.createdAt, passwordHash, `${folded} ${account.id}`];
      const created = await callRedis('createUser', () => CREATE.run(redis, keys, args));
      if (created !== 1) throw new UsernameTakenError();
      return account;
    },
    async verifyCredentials(username, password) {
      let fields: Record<string, string> | undefined;
      if (isValidUsername(username)) {
        const id = await callRedis('GET', () => redis.get(nameKey(foldUsername(username))));
        fields = id === null ? undefined : await read(id);
      }
      const stored = fields?.passwordHash;
      const check = await checkPassword(hasher, password, stored);
      if (!fields || stored === undefined || !check.ok) return undefined;
      const account = toAccount(fields);
      const { rehash } = check;
      if (account && rehash !== undefined) {
        await callRedis('rehash', () => REHASH.run(redis, [userKey(account.id)], [stored, rehash]));
      }
      return account;
    },
    async getById(id) {
      if (!isAccountId(id)) return undefined;
      const fields = await read(id);
      return fields && toAccount(fields);
    },
    async list(options) {
      const { limit, after } = resolveListOptions(options);
      // Members are `<folded name> <id>`; '!' sorts after ' ' and before every user name character, so
      // `(<after>!` starts right after the cursor's own member.
      const start = after === undefined ? '-' : `(${after}!`;
      const members = await callRedis('ZRANGEBYLEX', () =>
        redis.zrangebylex(indexKey, start, '+', 'LIMIT', 0, limit + 1),
      );
      const page = members.slice(0, limit).map((m) => {
        const space = m.indexOf(' ');
        return { folded: m.slice(0, space), id: m.slice(space + 1) };
      });
      // Sent back to back on one connection: one round trip for the page, as a pipeline would be.
      const replies = await callRedis('HGETALL', () =>
        Promise.all(page.map(({ id }) => redis.hgetall(userKey(id)))),
      );
      // An account deleted between the two reads is skipped: the page comes out short, never wrong.
      const accounts = replies.flatMap((reply) => {
        const fields = toFieldMap(reply);
        const account = fields && toAccount(fields);
        return account ? [account] : [];
      });
      const last = page.at(-1);
      const nextCursor = members.length > limit && last ? encodeListCursor(last.folded) : undefined;
      return { accounts, nextCursor };
    },
    async deleteUser(id) {
      if (!isAccountId(id)) return false;
      const username = await callRedis('HGET', () => redis.hget(userKey(id), 'username'));
      if (username === null) return false;
      const folded = foldUsername(username);
      const keys = [userKey(id), nameKey(folded), indexKey];
      return (await callRedis('deleteUser', () => DELETE.run(redis, keys, [id, `${folded} ${id}`]))) === 1;
    },
  };
}

function toAccount(fields: Record<string, string>): Account | undefined {
  const { id, username, createdAt } = fields;
  if (id === undefined || username === undefined || createdAt === undefined) return undefined;
  return { id, username, createdAt };
}
