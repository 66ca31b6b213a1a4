// `npx tsx hack/create-app-key.ts <app name> [--roles a,b] [--key-name ci] [--expires 2027-01-01T00:00:00Z]`:
// creates an application in the Redis at REDIS_URL (the one the gateway uses) with one API key, and prints
// `<application id> <key id> <key>`: the key is shown this once, Redis keeps only its SHA-256. More keys,
// listings and revocation: the gateway's admin API (services/gateway/docs/auth.md, Applications, API keys and roles).
// Exit codes: 0 created, 1 Redis failed, 2 usage.
import { createRedisClient, FAIL_FAST_POLICY, toSingleConnection } from '@portcullis/redis';
import { expiryOf, nameOf, createRedisAppStore } from '@portcullis/gateway/apps';
import { fail, parseCommand, reportStoreError, requireRedisUrl, rolesOption } from './admin-cli.js';

const { subject: appName, values } = parseCommand(
  'usage: npx tsx hack/create-app-key.ts <app name> [--roles a,b] [--key-name name] [--expires <ISO 8601 time>]',
  { roles: { type: 'string' }, 'key-name': { type: 'string' }, expires: { type: 'string' } },
);
const redisUrl = requireRedisUrl('key', 'the gateway uses');
const roles = rolesOption(values.roles);

let input: { name: string; keyName: string; expiresAt: string | undefined };
try {
  input = {
    name: nameOf(appName),
    keyName: nameOf(values['key-name'] ?? 'default'),
    expiresAt: expiryOf(values.expires, Date.now()),
  };
} catch (err: unknown) {
  fail((err as Error).message, 2);
}

const redis = createRedisClient(toSingleConnection(redisUrl), FAIL_FAST_POLICY);
try {
  const store = createRedisAppStore({ redis });
  const app = await store.createApp({ name: input.name, roles });
  const created = await store.createKey(app.id, {
    name: input.keyName,
    ...(input.expiresAt ? { expiresAt: input.expiresAt } : {}),
  });
  if (!created) throw new Error('the application vanished');
  process.stdout.write(`${app.id} ${created.info.id} ${created.key}\n`);
} catch (err: unknown) {
  reportStoreError(err);
} finally {
  redis.disconnect();
}
