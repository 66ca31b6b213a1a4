import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createAccountsBackend } from '@portcullis/accounts';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createTestHasher, describeBackend } from './behaviour-suite.js';

let dir: string;
let n = 0;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'file-accounts-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describeBackend('file', (hasher) =>
  Promise.resolve(createAccountsBackend({ hasher, accountsFile: join(dir, `suite-${n++}/accounts.json`) })),
);

it('keeps the accounts in the file, private, for another process and the next start', async () => {
  const file = join(dir, 'state/accounts.json');
  const { hasher } = createTestHasher();
  const first = createAccountsBackend({ hasher, accountsFile: file });
  expect(first.kind).toBe('file');
  const carol = await first.accounts.createUser({ username: 'carol', password: 'correct horse battery' });
  expect((await stat(file)).mode & 0o777).toBe(0o600);
  expect(await readFile(file, 'utf8')).not.toContain('correct horse');

  // another store on the file sees her at once, and what it adds the first one sees too
  const second = createAccountsBackend({ hasher, accountsFile: file });
  expect(await second.accounts.verifyCredentials('Carol', 'correct horse battery')).toEqual(carol);
  const dave = await second.accounts.createUser({ username: 'dave', password: 'correct horse battery' });
  expect(await first.accounts.getById(dave.id)).toEqual(dave);
  await Promise.all([first.close(), second.close()]);
});

it('names the file when it is not an accounts file', async () => {
  const backend = createAccountsBackend({ hasher: createTestHasher().hasher, accountsFile: dir });
  await expect(backend.accounts.getById('x')).rejects.toThrow(`${dir}: not readable`);
});
