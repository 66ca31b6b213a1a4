/** One sign-in's chain of refresh tokens: what the admin API lists. Times are epoch ms. */
export interface RefreshFamily {
  id: string;
  userId: string;
  createdAt: number;
  lastUsedAt: number;
  /** When the live refresh token expires; each rotation moves it on by `GATEWAY_REFRESH_TTL`. */
  expiresAt: number;
  userAgent: string;
  address: string;
}

/** What presenting a refresh token of a family did. */
export type RotateResult =
  | { kind: 'rotated'; family: RefreshFamily }
  /** The token was spent before: the family is gone (the caller revokes its access tokens). */
  | { kind: 'reused'; family: RefreshFamily }
  /** No such family (never, expired, ended or revoked). */
  | { kind: 'unknown' };

/**
 * Refresh-token families, each holding the SHA-256 of its one live token (never the token). A family
 * ends when it expires, on `end`, or on reuse.
 */
export interface RefreshStore {
  create(family: RefreshFamily, tokenHash: string): Promise<void>;
  /**
   * When `presentedHash` is the family's live token: makes `nextHash` the live one, `lastUsedAt` now and
   * `expiresAt` `nextExpiresAt`. Any other token of a live family is a spent one (a family's id is 128
   * random bits, known only from its tokens): the family is deleted.
   */
  rotate(
    familyId: string,
    presentedHash: string,
    next: { hash: string; now: number; expiresAt: number },
  ): Promise<RotateResult>;
  /** A user's live families, oldest first. */
  list(userId: string): Promise<RefreshFamily[]>;
  /** Deletes the family if it exists (and belongs to `userId`, when given): it, or undefined. */
  end(familyId: string, userId?: string): Promise<RefreshFamily | undefined>;
}

/** Local mode's store: families in a map, the expired ones dropped as new ones come. */
export function createMemoryRefreshStore(now: () => number): RefreshStore {
  const families = new Map<string, { family: RefreshFamily; hash: string }>();
  const live = (id: string) => {
    const entry = families.get(id);
    if (entry && entry.family.expiresAt <= now()) {
      families.delete(id);
      return undefined;
    }
    return entry;
  };
  return {
    create(family, tokenHash) {
      for (const id of [...families.keys()]) live(id);
      families.set(family.id, { family: { ...family }, hash: tokenHash });
      return Promise.resolve();
    },
    rotate(familyId, presentedHash, next) {
      const entry = live(familyId);
      if (!entry) return Promise.resolve({ kind: 'unknown' });
      if (entry.hash !== presentedHash) {
        families.delete(familyId);
        return Promise.resolve({ kind: 'reused', family: { ...entry.family } });
      }
      entry.hash = next.hash;
      entry.family = { ...entry.family, lastUsedAt: next.now, expiresAt: next.expiresAt };
      return Promise.resolve({ kind: 'rotated', family: { ...entry.family } });
    },
    list(userId) {
      const found = [...families.keys()]
        .map((id) => live(id)?.family)
        .filter((f): f is RefreshFamily => f !== undefined && f.userId === userId)
        .sort((a, b) => a.createdAt - b.createdAt);
      return Promise.resolve(found.map((f) => ({ ...f })));
    },
    end(familyId, userId) {
      const entry = live(familyId);
      if (!entry || (userId !== undefined && entry.family.userId !== userId))
        return Promise.resolve(undefined);
      families.delete(familyId);
      return Promise.resolve({ ...entry.family });
    },
  };
}
