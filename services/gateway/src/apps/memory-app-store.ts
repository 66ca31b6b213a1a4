import type { Clock } from '@portcullis/accounts';
import { isoTime, newApiKey, newRecordId } from './api-key.js';
import type { ApiKeyInfo, Application, AppStore } from './app-types.js';

/** Applications, keys and user roles in this process (local mode): gone when it exits. */
export function createMemoryAppStore(o: { now?: Clock } = {}): AppStore {
  const now = o.now ?? Date.now;
  const apps = new Map<string, Application>();
  /** By key hash. */
  const keys = new Map<string, ApiKeyInfo>();
  /** appId → keyId → key hash. */
  const appKeys = new Map<string, Map<string, string>>();
  const userRoles = new Map<string, string[]>();
  const copyApp = (a: Application): Application => ({ ...a, roles: [...a.roles] });

  return {
    createApp(input) {
      const app = { id: newRecordId(), name: input.name, roles: [...input.roles], createdAt: isoTime(now()) };
      apps.set(app.id, app);
      appKeys.set(app.id, new Map());
      return Promise.resolve(copyApp(app));
    },
    getApp(id) {
      const app = apps.get(id);
      return Promise.resolve(app && copyApp(app));
    },
    listApps() {
      return Promise.resolve([...apps.values()].map(copyApp));
    },
    createKey(appId, input) {
      const byId = appKeys.get(appId);
      if (!byId) return Promise.resolve(undefined);
      const { key, hash, info } = newApiKey(appId, input, now());
      keys.set(hash, info);
      byId.set(info.id, hash);
      return Promise.resolve({ key, info: { ...info } });
    },
    listKeys(appId) {
      const byId = appKeys.get(appId);
      if (!byId) return Promise.resolve(undefined);
      return Promise.resolve(
        [...byId.values()].flatMap((h) => {
          const info = keys.get(h);
          return info ? [{ ...info }] : [];
        }),
      );
    },
    revokeKey(appId, keyId) {
      const hash = appKeys.get(appId)?.get(keyId);
      const info = hash === undefined ? undefined : keys.get(hash);
      if (!info) return Promise.resolve(false);
      info.revokedAt ??= isoTime(now());
      return Promise.resolve(true);
    },
    findByKeyHash(hash) {
      const key = keys.get(hash);
      const app = key && apps.get(key.appId);
      return Promise.resolve(key && app ? { key: { ...key }, app: copyApp(app) } : undefined);
    },
    setUserRoles(accountId, roles) {
      userRoles.set(accountId, [...roles]);
      return Promise.resolve();
    },
    userRoles(accountId) {
      return Promise.resolve([...(userRoles.get(accountId) ?? [])]);
    },
  };
}
