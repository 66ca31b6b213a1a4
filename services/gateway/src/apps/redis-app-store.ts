import { AccountsBackendError, type Clock } from '@portcullis/accounts';
import { createRedisCaller, type RedisClient } from '@portcullis/redis';
import { createExpiringCache } from '../expiring-cache.js';
import { isoTime, newApiKey, newRecordId } from './api-key.js';
import type { ApiKeyInfo, Application, AppStore } from './app-types.js';

// the accounts' Redis, so its outage is theirs: 503 ACCOUNTS_BACKEND_UNAVAILABLE
const { call, exec } = createRedisCaller(
  'applications',
  (message, cause) => new AccountsBackendError(message, { cause }),
);

/** Applications kept in this process after their first read: a few hundred bytes each. */
const APP_CACHE_ENTRIES = 10_000;

/** Every key starts with it; the hash tag keeps a MULTI's keys in one cluster slot. */
export const APP_KEY_PREFIX = '{apps}:';

/**
 * Applications in Redis: `{apps}:app:<id>` HASH (id, name, roles as JSON, createdAt), `{apps}:apps` ZSET of
 * ids by creation time, `{apps}:app-keys:<app id>` HASH key id → key hash, `{apps}:key:<sha-256 of the key>`
 * HASH (id, appId, name, createdAt, expiresAt, revokedAt) and `{apps}:user-roles:<account id>` STRING (JSON
 * list). The key itself is never stored. No TTLs: expired and revoked keys stay listed.
 *
 * An application never changes once created (there is no update or delete), so `findByKeyHash` reads each
 * from Redis once and keeps it: a request with a key costs one round trip, the key's record, whose
 * revocation and expiry are read every time. Should applications ever change, this cache must go.
 */
export function createRedisAppStore(o: { redis: RedisClient; now?: Clock }): AppStore {
  const { redis } = o;
  const now = o.now ?? Date.now;
  const appKey = (id: string): string => `${APP_KEY_PREFIX}app:${id}`;
  const appsKey = `${APP_KEY_PREFIX}apps`;
  const appKeysKey = (id: string): string => `${APP_KEY_PREFIX}app-keys:${id}`;
  const keyKey = (hash: string): string => `${APP_KEY_PREFIX}key:${hash}`;
  const rolesKey = (id: string): string => `${APP_KEY_PREFIX}user-roles:${id}`;

  const getApp = async (id: string): Promise<Application | undefined> =>
    toApp(await call('HGETALL', () => redis.hgetall(appKey(id))));
  const known = createExpiringCache<Application>({ maxEntries: APP_CACHE_ENTRIES, now });
  const knownApp = async (id: string): Promise<Application | undefined> => {
    const cached = known.get(id);
    if (cached) return cached;
    const app = await getApp(id);
    if (app) known.set(id, app, Number.POSITIVE_INFINITY);
    return app;
  };
  const getKey = async (hash: string): Promise<ApiKeyInfo | undefined> =>
    toKey(await call('HGETALL', () => redis.hgetall(keyKey(hash))));

  return {
    async createApp(input) {
      const app: Application = {
        id: newRecordId(),
        name: input.name,
        roles: [...input.roles],
        createdAt: isoTime(now()),
      };
      await exec(
        'MULTI',
        redis
          .multi()
          .hset(appKey(app.id), { ...app, roles: JSON.stringify(app.roles) })
          .zadd(appsKey, now(), app.id),
      );
      return app;
    },
    getApp,
    async listApps() {
      const ids = await call('ZRANGE', () => redis.zrange(appsKey, 0, -1));
      const found = await Promise.all(ids.map(getApp));
      return found.flatMap((a) => (a ? [a] : []));
    },
    async createKey(appId, input) {
      if (!(await getApp(appId))) return undefined;
      const { key, hash, info } = newApiKey(appId, input, now());
      await exec(
        'MULTI',
        redis
          .multi()
          .hset(keyKey(hash), { ...info })
          .hset(appKeysKey(appId), info.id, hash),
      );
      return { key, info };
    },
    async listKeys(appId) {
      if (!(await getApp(appId))) return undefined;
      const hashes = Object.values(await call('HGETALL', () => redis.hgetall(appKeysKey(appId))));
      const found = await Promise.all(hashes.map(getKey));
      return found.flatMap((k) => (k ? [k] : [])).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
    },
    async revokeKey(appId, keyId) {
      const hash = await call('HGET', () => redis.hget(appKeysKey(appId), keyId));
      if (hash === null) return false;
      // HSETNX: revoking twice keeps the first time
      await call('HSETNX', () => redis.hsetnx(keyKey(hash), 'revokedAt', isoTime(now())));
      return true;
    },
    async findByKeyHash(hash) {
      const key = await getKey(hash);
      const app = key && (await knownApp(key.appId));
      return key && app ? { key, app } : undefined;
    },
    async setUserRoles(accountId, roles) {
      await call('SET', () => redis.set(rolesKey(accountId), JSON.stringify(roles)));
    },
    async userRoles(accountId) {
      const text = await call('GET', () => redis.get(rolesKey(accountId)));
      return text === null ? [] : (JSON.parse(text) as string[]);
    },
  };
}

function toApp(h: Record<string, string>): Application | undefined {
  if (h.id === undefined) return undefined;
  return {
    id: h.id,
    name: h.name ?? '',
    roles: JSON.parse(h.roles ?? '[]') as string[],
    createdAt: h.createdAt ?? '',
  };
}

function toKey(h: Record<string, string>): ApiKeyInfo | undefined {
  if (h.id === undefined || h.appId === undefined) return undefined;
  return {
    id: h.id,
    appId: h.appId,
    name: h.name ?? '',
    createdAt: h.createdAt ?? '',
    ...(h.expiresAt ? { expiresAt: h.expiresAt } : {}),
    ...(h.revokedAt ? { revokedAt: h.revokedAt } : {}),
  };
}
