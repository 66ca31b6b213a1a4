import { createAccountsBackend } from '@portcullis/accounts';
import { expect, it } from 'vitest';
import { describeBackend } from './behaviour-suite.js';

describeBackend('memory', (hasher) => Promise.resolve(createAccountsBackend({ hasher })));

it('picks memory stores when no Redis URL is given', async () => {
  const backend = createAccountsBackend({ redisUrl: '' });
  expect(backend.kind).toBe('memory');
  await backend.close();
});
