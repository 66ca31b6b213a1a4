// `npx tsx hack/create-app-key.ts <app name> [--roles a,b] [--key-name ci] [--expires 2027-01-01T00:00:00Z]`:
// creates an application in the Redis at REDIS_URL (the one the gateway uses) with one API key, and prints
// `<application id> <key id> <key>`: the key is shown this once, Redis keeps only its SHA-256. More keys,
// listings and revocation: the gateway's admin API (services/gateway/README.md, Applications and API keys).
// Exit codes: 0 created, 1 Redis failed, 2 usage.
import { parseArgs } from 'node:util';
import { PortcullisError } from '@portcullis/kit';
import { createRedisClient, FAIL_FAST_POLICY, toSingleConnection } from '@portcullis/redis';
import { expiryOf, nameOf, rolesOf } from '../services/gateway/src/apps/admin-routes.js';
import { createRedisAppStore } from '../services/gateway/src/apps/redis-app-store.js';

function fail(message: string, exitCode: number): never {
  process.stderr.write(`${message}\n`);
  process.exit(exitCode);
}

const USAGE =
  'usage: npx tsx hack/create-app-key.ts <app name> [--roles a,b] [--key-name name] [--expires <ISO 8601 time>]';
let parsed: ReturnType<typeof parse>;
function parse() {
  return parseArgs({
    allowPositionals: true,
    options: { roles: { type: 'string' }, 'key-name': { type: 'string' }, expires: { type: 'string' } },
  });
}
try {
  parsed = parse();
} catch (err: unknown) {
  fail(`${(err as Error).message}\n${USAGE}`, 2);
}
const [appName, ...extra] = parsed.positionals;
if (appName === undefined || extra.length > 0) fail(USAGE, 2);
const redisUrl = process.env.REDIS_URL ?? '';
if (redisUrl === '') {
  fail(
    'REDIS_URL is not set: in memory mode the key would vanish when this command exits. ' +
      'Set REDIS_URL to the Redis the gateway uses.',
    2,
  );
}

let input: { name: string; roles: string[]; keyName: string; expiresAt: string | undefined };
try {
  const roles = parsed.values.roles;
  input = {
    name: nameOf(appName),
    roles: rolesOf(roles === undefined || roles === '' ? [] : roles.split(',')),
    keyName: nameOf(parsed.values['key-name'] ?? 'default'),
    expiresAt: expiryOf(parsed.values.expires, Date.now()),
  };
} catch (err: unknown) {
  fail((err as Error).message, 2);
}

const redis = createRedisClient(toSingleConnection(redisUrl), FAIL_FAST_POLICY);
try {
  const store = createRedisAppStore({ redis });
  const app = await store.createApp({ name: input.name, roles: input.roles });
  const created = await store.createKey(app.id, {
    name: input.keyName,
    ...(input.expiresAt ? { expiresAt: input.expiresAt } : {}),
  });
  if (!created) throw new Error('the application vanished');
  process.stdout.write(`${app.id} ${created.info.id} ${created.key}\n`);
} catch (err: unknown) {
  if (!(err instanceof PortcullisError)) throw err;
  const cause = err.cause instanceof Error ? ` (${err.cause.message})` : '';
  process.stderr.write(`${err.code}: ${err.message}${cause}\n`);
  process.exitCode = 1;
} finally {
  redis.disconnect();
}
