import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '@portcullis/kit';
import { createMemoryTokenDenylist } from './memory-denylist.js';

function setUp() {
  let t = 1_767_225_600_000; // 2026-01-01T00:00:00Z
  const denylist = createMemoryTokenDenylist({ now: () => t });
  return { denylist, nowSec: () => t / 1000, advance: (ms: number) => (t += ms) };
}

describe('memory token denylist (injected clock)', () => {
  it('keeps a revoked jti until the token would expire', async () => {
    const { denylist, nowSec, advance } = setUp();
    await denylist.revoke('jti-1', nowSec() + 60);
    expect(await denylist.isRevoked('jti-1')).toBe(true);
    expect(await denylist.isRevoked('jti-2')).toBe(false);
    advance(59_999);
    expect(await denylist.isRevoked('jti-1')).toBe(true);
    advance(1);
    expect(await denylist.isRevoked('jti-1')).toBe(false);
  });

  it('ignores a token that has already expired', async () => {
    const { denylist, nowSec } = setUp();
    await denylist.revoke('jti-1', nowSec());
    await denylist.revoke('jti-2', nowSec() - 10);
    expect(await denylist.isRevoked('jti-1')).toBe(false);
    expect(await denylist.isRevoked('jti-2')).toBe(false);
  });

  it('never shortens an entry', async () => {
    const { denylist, nowSec, advance } = setUp();
    await denylist.revoke('jti-1', nowSec() + 60);
    await denylist.revoke('jti-1', nowSec() + 1);
    advance(30_000);
    expect(await denylist.isRevoked('jti-1')).toBe(true);
  });

  it('refuses an empty or overlong jti and an expiry that is not a number', async () => {
    const { denylist } = setUp();
    await expect(denylist.revoke('', 2e9)).rejects.toThrow(
      new InvalidArgumentError('jti must have 1-256 characters'),
    );
    await expect(denylist.revoke('j'.repeat(257), 2e9)).rejects.toBeInstanceOf(InvalidArgumentError);
    await denylist.revoke('j'.repeat(256), 2e9);
    expect(await denylist.isRevoked('j'.repeat(256))).toBe(true);
    await expect(denylist.revoke('jti-1', Number.NaN)).rejects.toThrow(
      new InvalidArgumentError('token expiry must be a number'),
    );
  });
});
