// What hack/create-user.ts and hack/create-app-key.ts share: one positional argument and options, usage
// errors with exit code 2, the Redis they write to, and a refused or failed store call as exit code 1.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { PortcullisError } from '@portcullis/kit';
import { rolesOf } from '@portcullis/gateway/apps';

export function fail(message: string, exitCode: number): never {
  process.stderr.write(`${message}\n`);
  process.exit(exitCode);
}

type StringOptions = Record<string, { type: 'string' }>;

/** The one positional argument and the string options; anything else is a usage error. */
export function parseCommand<O extends StringOptions>(
  usage: string,
  options: O,
): { subject: string; values: Partial<Record<keyof O, string>> } {
  let parsed: { positionals: string[]; values: Record<string, unknown> };
  try {
    parsed = parseArgs({ allowPositionals: true, options } satisfies ParseArgsConfig);
  } catch (err: unknown) {
    fail(`${(err as Error).message}\n${usage}`, 2);
  }
  const [subject, ...extra] = parsed.positionals;
  if (subject === undefined || extra.length > 0) fail(usage, 2);
  return { subject, values: parsed.values as Partial<Record<keyof O, string>> };
}

/** `--roles a,b` checked as the admin API checks roles; usage error when one is not a role name. */
export function rolesOption(listed: string | undefined): string[] {
  try {
    return rolesOf(listed === undefined || listed === '' ? [] : listed.split(','));
  } catch (err: unknown) {
    fail((err as Error).message, 2);
  }
}

/** REDIS_URL, required: in memory mode what the command creates would vanish when it exits. */
export function requireRedisUrl(created: string, usedBy: string): string {
  const url = process.env.REDIS_URL ?? '';
  if (url === '') {
    fail(
      `REDIS_URL is not set: in memory mode the ${created} would vanish when this command exits. ` +
        `Set REDIS_URL to the Redis ${usedBy}.`,
      2,
    );
  }
  return url;
}

/** A store's refusal or failure as `CODE: message (cause)` and exit code 1; anything else is a bug, thrown. */
export function reportStoreError(err: unknown): void {
  if (!(err instanceof PortcullisError)) throw err;
  const cause = err.cause instanceof Error ? ` (${err.cause.message})` : '';
  process.stderr.write(`${err.code}: ${err.message}${cause}\n`);
  process.exitCode = 1;
}
