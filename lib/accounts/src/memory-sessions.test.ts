import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '@portcullis/kit';
import { createMemorySessionStore } from './memory-sessions.js';

function setUp() {
  let t = Date.parse('2026-01-01T00:00:00Z');
  const store = createMemorySessionStore({ now: () => t });
  return { store, advance: (ms: number) => (t += ms) };
}

describe('memory session store (injected clock)', () => {
  it('creates a session with a 256-bit base64url id, expiring ttlSeconds from now', async () => {
    const { store } = setUp();
    const s = await store.create('acct-1', { ttlSeconds: 60 });
    expect(s.id).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(s).toEqual({ id: s.id, accountId: 'acct-1', expiresAt: '2026-01-01T00:01:00.000Z' });
    expect(await store.get(s.id)).toEqual(s);
  });

  it('forgets a session at its expiry, not a millisecond before', async () => {
    const { store, advance } = setUp();
    const s = await store.create('acct-1', { ttlSeconds: 60 });
    advance(59_999);
    expect(await store.get(s.id)).toEqual(s);
    advance(1);
    expect(await store.get(s.id)).toBeUndefined();
    expect(await store.touch(s.id, 60)).toBeUndefined();
    expect(await store.destroy(s.id)).toBe(false);
  });

  it('slides the expiry on touch', async () => {
    const { store, advance } = setUp();
    const s = await store.create('acct-1', { ttlSeconds: 60 });
    advance(50_000);
    expect(await store.touch(s.id, 60)).toEqual({ ...s, expiresAt: '2026-01-01T00:01:50.000Z' });
    advance(50_000);
    expect(await store.get(s.id)).toEqual({ ...s, expiresAt: '2026-01-01T00:01:50.000Z' });
    advance(10_000);
    expect(await store.get(s.id)).toBeUndefined();
  });

  it('takes fractional TTLs at millisecond precision', async () => {
    const { store, advance } = setUp();
    const s = await store.create('acct-1', { ttlSeconds: 0.25 });
    expect(s.expiresAt).toBe('2026-01-01T00:00:00.250Z');
    advance(250);
    expect(await store.get(s.id)).toBeUndefined();
  });

  it('destroys all live sessions of one account and counts them', async () => {
    const { store, advance } = setUp();
    const short = await store.create('acct-1', { ttlSeconds: 1 });
    const a = await store.create('acct-1', { ttlSeconds: 60 });
    const b = await store.create('acct-1', { ttlSeconds: 60 });
    const other = await store.create('acct-2', { ttlSeconds: 60 });
    advance(1000);
    expect(await store.destroyAllFor('acct-1')).toBe(2);
    for (const s of [short, a, b]) expect(await store.get(s.id)).toBeUndefined();
    expect(await store.get(other.id)).toEqual(other);
    expect(await store.destroyAllFor('acct-1')).toBe(0);
  });

  it('still ends an account’s other sessions after one of them was destroyed', async () => {
    const { store } = setUp();
    const a = await store.create('acct-1', { ttlSeconds: 60 });
    const b = await store.create('acct-1', { ttlSeconds: 60 });
    expect(await store.destroy(a.id)).toBe(true);
    expect(await store.destroyAllFor('acct-1')).toBe(1);
    expect(await store.get(b.id)).toBeUndefined();
  });

  it('ignores ids that are not ours and refuses TTLs that are not positive', async () => {
    const { store } = setUp();
    expect(await store.get('not-a-session')).toBeUndefined();
    await expect(store.create('acct-1', { ttlSeconds: 0 })).rejects.toThrow(
      new InvalidArgumentError('session ttlSeconds must be a positive number, got 0'),
    );
    for (const ttlSeconds of [0, -1, Number.NaN, Number.POSITIVE_INFINITY]) {
      await expect(store.create('acct-1', { ttlSeconds })).rejects.toBeInstanceOf(InvalidArgumentError);
    }
  });
});
