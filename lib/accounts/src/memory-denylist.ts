import { toRevocationTtlMs } from './revocation-rules.js';
import { runAsync } from './run-async.js';
import type { Clock, TokenDenylist } from './types.js';

export interface MemoryTokenDenylistOptions {
  now?: Clock;
}

/** Expired entries are dropped when met, and all of them every this many revocations. */
const SWEEP_EVERY_REVOKES = 256;

/** Revoked token ids in this process, for local mode and tests: not shared between replicas. */
export function createMemoryTokenDenylist(o: MemoryTokenDenylistOptions = {}): TokenDenylist {
  const now = o.now ?? Date.now;
  const revoked = new Map<string, number>();
  let revokes = 0;

  const isLive = (jti: string): boolean => {
    const untilMs = revoked.get(jti);
    if (untilMs === undefined) return false;
    if (untilMs > now()) return true;
    revoked.delete(jti);
    return false;
  };

  return {
    revoke(jti, expiresAtSec) {
      return runAsync(() => {
        const t = now();
        const ttlMs = toRevocationTtlMs(jti, expiresAtSec, t);
        if (++revokes % SWEEP_EVERY_REVOKES === 0) for (const j of revoked.keys()) isLive(j);
        if (ttlMs > 0) revoked.set(jti, Math.max(revoked.get(jti) ?? 0, t + ttlMs));
        return;
      });
    },
    isRevoked(jti) {
      return runAsync(() => {
        return isLive(jti);
      });
    },
  };
}
