// `npx tsx hack/create-user.ts <username> [--roles a,b]`: creates a platform account in the Redis at REDIS_URL
// (the one the gateway and the inbox use, default key prefix `acct:`) and prints its id; without REDIS_URL, in
// the accounts file of local mode (GATEWAY_ACCOUNTS_FILE, `.portcullis/accounts.json` under `npm start`), which
// the running gateway reads at the next sign-in. The password comes
// from PORTCULLIS_PASSWORD or, on a terminal, from a prompt that does not echo. `--roles` gives the user
// gateway roles, through the gateway's app store, as `PUT /admin/users/{id}/roles` does.
// Exit codes: 0 created, 1 refused (name taken, weak password) or Redis failed, 2 usage, 130 interrupted.
import { join, relative } from 'node:path';
import { createAccountsBackend, isValidUsername, MIN_PASSWORD_CHARS } from '@portcullis/accounts';
import { createRedisClient, FAIL_FAST_POLICY, toSingleConnection } from '@portcullis/redis';
import { createRedisAppStore } from '@portcullis/gateway/apps';
import { fail, parseCommand, reportStoreError, rolesOption } from './admin-cli.js';
import { localAccountsFile } from './local-services.js';

class Interrupted extends Error {}

/** `path` from the working directory when it is below it, else whole. */
function shownPath(path: string): string {
  const below = relative(process.cwd(), path);
  return below === '' || below.startsWith('..') ? path : below;
}

/** Reads one line from the terminal without echoing it. */
function promptHidden(prompt: string): Promise<string> {
  const stdin = process.stdin;
  // Raw mode before the prompt: keys typed ahead of it must not echo either.
  stdin.setRawMode(true);
  stdin.setEncoding('utf8');
  stdin.resume();
  process.stderr.write(prompt);
  return new Promise((resolve, reject) => {
    let value = '';
    const finish = (): void => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
      process.stderr.write('\n');
    };
    const onData = (chunk: string): void => {
      for (const ch of chunk) {
        if (ch === '\r' || ch === '\n' || ch === '\u0004') {
          finish();
          resolve(value);
          return;
        }
        if (ch === '\u0003') {
          finish();
          reject(new Interrupted());
          return;
        }
        value = ch === '\u007f' || ch === '\b' ? Array.from(value).slice(0, -1).join('') : value + ch;
      }
    };
    stdin.on('data', onData);
  });
}

async function readPassword(): Promise<string> {
  const fromEnv = process.env.PORTCULLIS_PASSWORD;
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  if (!process.stdin.isTTY) fail('no password: set PORTCULLIS_PASSWORD or run on a terminal', 2);
  const first = await promptHidden(`Password (at least ${MIN_PASSWORD_CHARS} characters): `);
  const second = await promptHidden('Repeat password: ');
  if (first !== second) fail('the passwords differ', 2);
  return first;
}

const { subject: username, values } = parseCommand(
  'usage: npx tsx hack/create-user.ts <username> [--roles a,b]',
  {
    roles: { type: 'string' },
  },
);
if (!isValidUsername(username)) fail('user name must be 1-64 characters from A-Z a-z 0-9 _ . @ -', 2);
const roles = rolesOption(values.roles);
const redisUrl = process.env.REDIS_URL ?? '';
const accountsFile =
  redisUrl === ''
    ? process.env.GATEWAY_ACCOUNTS_FILE || localAccountsFile(join(import.meta.dirname, '..'))
    : '';
if (accountsFile !== '' && roles.length > 0) {
  fail(
    '--roles needs REDIS_URL: without Redis the gateway keeps roles in its memory; ' +
      'give them with PUT /admin/users/{id}/roles on the running gateway',
    2,
  );
}

let password: string;
try {
  password = await readPassword();
} catch (err: unknown) {
  if (err instanceof Interrupted) fail('interrupted', 130);
  throw err;
}

const backend = createAccountsBackend(redisUrl === '' ? { accountsFile } : { redisUrl });
const redis =
  roles.length > 0 ? createRedisClient(toSingleConnection(redisUrl), FAIL_FAST_POLICY) : undefined;
try {
  const account = await backend.accounts.createUser({ username, password });
  if (redis) await createRedisAppStore({ redis }).setUserRoles(account.id, roles);
  process.stdout.write(`${account.id}\n`);
  if (accountsFile !== '') {
    process.stderr.write(
      `${account.username} saved in ${shownPath(accountsFile)} (no REDIS_URL: ` +
        `the accounts file of npm start's gateway); sign in at POST /api/auth\n`,
    );
  }
} catch (err: unknown) {
  reportStoreError(err);
} finally {
  redis?.disconnect();
  await backend.close();
}
