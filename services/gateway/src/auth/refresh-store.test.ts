import { describe, expect, it } from 'vitest';
import { createMemoryRefreshStore, type RefreshFamily } from './refresh-store.js';

const family = (id: string, userId: string, createdAt: number, ttlMs: number): RefreshFamily => ({
  id,
  userId,
  createdAt,
  lastUsedAt: createdAt,
  expiresAt: createdAt + ttlMs,
  userAgent: 'ua',
  address: '127.0.0.1',
});

describe('memory refresh store (injected clock)', () => {
  it('rotates the live token, calls any other token of the family a reuse and ends the family', async () => {
    let now = 1_000;
    const store = createMemoryRefreshStore(() => now);
    await store.create(family('f1', 'u1', now, 60_000), 'h1');
    now += 10;
    const rotated = await store.rotate('f1', 'h1', { hash: 'h2', now, expiresAt: now + 60_000 });
    expect(rotated).toMatchObject({ kind: 'rotated', family: { lastUsedAt: 1_010, expiresAt: 61_010 } });
    expect(await store.rotate('f1', 'h1', { hash: 'h3', now, expiresAt: now + 1 })).toMatchObject({
      kind: 'reused',
      family: { id: 'f1', userId: 'u1' },
    });
    expect(await store.rotate('f1', 'h2', { hash: 'h3', now, expiresAt: now + 1 })).toEqual({
      kind: 'unknown',
    });
  });

  it('forgets a family once it expires, and ends one only for its own user', async () => {
    let now = 0;
    const store = createMemoryRefreshStore(() => now);
    await store.create(family('old', 'u1', now, 1_000), 'h');
    await store.create(family('new', 'u1', now + 1, 5_000), 'h');
    now = 1_000;
    expect((await store.list('u1')).map((f) => f.id)).toEqual(['new']);
    expect(await store.rotate('old', 'h', { hash: 'x', now, expiresAt: now + 1 })).toEqual({
      kind: 'unknown',
    });
    expect(await store.end('new', 'u2')).toBeUndefined();
    expect(await store.end('new', 'u1')).toMatchObject({ id: 'new' });
    expect(await store.list('u1')).toEqual([]);
  });
});
