import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '@portcullis/kit';
import { createMemoryAccountStore } from './memory-accounts.js';
import { createScryptHasher } from './password-hasher.js';

const hasher = createScryptHasher({ ln: 10 });

describe('memory account store', () => {
  it('stamps createdAt from the injected clock', async () => {
    const store = createMemoryAccountStore({ hasher, now: () => Date.parse('2026-02-03T04:05:06.789Z') });
    const account = await store.createUser({ username: 'Alice', password: 'correct horse' });
    expect(account.createdAt).toBe('2026-02-03T04:05:06.789Z');
    expect(await store.getById(account.id)).toEqual(account);
  });

  it.each([
    ['limit 0', { limit: 0 }, 'list limit must be an integer from 1 to 1000'],
    ['limit 1001', { limit: 1001 }, 'list limit must be an integer from 1 to 1000'],
    ['a fractional limit', { limit: 2.5 }, 'list limit must be an integer from 1 to 1000'],
    ['a forged cursor', { cursor: 'not base64url!' }, 'list cursor is not one this store issued'],
    [
      'an upper-case cursor',
      { cursor: Buffer.from('Alice').toString('base64url') },
      'list cursor is not one this store issued',
    ],
  ])('refuses %s', async (_, options, message) => {
    const store = createMemoryAccountStore({ hasher });
    await expect(store.list(options)).rejects.toThrow(new InvalidArgumentError(message));
  });
});
