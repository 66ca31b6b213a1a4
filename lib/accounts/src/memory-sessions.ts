import { runAsync } from './run-async.js';
import { createSessionId, isSessionId, toTtlMs } from './session-rules.js';
import type { Clock, Session, SessionStore } from './types.js';

export interface MemorySessionStoreOptions {
  now?: Clock;
}

interface Entry {
  accountId: string;
  expiresAtMs: number;
}

/** Expired sessions are dropped when met, and all of them every this many creations. */
const SWEEP_EVERY_CREATES = 256;

/** Sessions in this process, for local mode and tests: gone when it exits, not shared between replicas. */
export function createMemorySessionStore(o: MemorySessionStoreOptions = {}): SessionStore {
  const now = o.now ?? Date.now;
  const sessions = new Map<string, Entry>();
  const byAccount = new Map<string, Set<string>>();
  let creates = 0;

  const drop = (id: string, entry: Entry): void => {
    sessions.delete(id);
    const ids = byAccount.get(entry.accountId);
    ids?.delete(id);
    if (ids?.size === 0) byAccount.delete(entry.accountId);
  };
  const live = (id: string): Entry | undefined => {
    const entry = sessions.get(id);
    if (!entry) return undefined;
    if (entry.expiresAtMs > now()) return entry;
    drop(id, entry);
    return undefined;
  };
  const sweep = (): void => {
    for (const id of sessions.keys()) live(id);
  };

  return {
    create(accountId, { ttlSeconds }) {
      return runAsync(() => {
        const expiresAtMs = now() + toTtlMs(ttlSeconds);
        if (++creates % SWEEP_EVERY_CREATES === 0) sweep();
        const id = createSessionId();
        sessions.set(id, { accountId, expiresAtMs });
        const ids = byAccount.get(accountId) ?? new Set<string>();
        ids.add(id);
        byAccount.set(accountId, ids);
        return toSession(id, accountId, expiresAtMs);
      });
    },
    get(id) {
      return runAsync(() => {
        const entry = isSessionId(id) ? live(id) : undefined;
        return entry && toSession(id, entry.accountId, entry.expiresAtMs);
      });
    },
    touch(id, ttlSeconds) {
      return runAsync(() => {
        const ttlMs = toTtlMs(ttlSeconds);
        const entry = isSessionId(id) ? live(id) : undefined;
        if (!entry) return undefined;
        entry.expiresAtMs = now() + ttlMs;
        return toSession(id, entry.accountId, entry.expiresAtMs);
      });
    },
    destroy(id) {
      return runAsync(() => {
        const entry = isSessionId(id) ? live(id) : undefined;
        if (entry) drop(id, entry);
        return entry !== undefined;
      });
    },
    destroyAllFor(accountId) {
      return runAsync(() => {
        let count = 0;
        for (const id of [...(byAccount.get(accountId) ?? [])]) {
          const entry = live(id);
          if (entry) {
            drop(id, entry);
            count++;
          }
        }
        return count;
      });
    },
  };
}

function toSession(id: string, accountId: string, expiresAtMs: number): Session {
  return { id, accountId, expiresAt: new Date(expiresAtMs).toISOString() };
}
