import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './cli-errors.js';
import { DEFAULT_INBOX_URL, type CliSettings } from './cli-settings.js';
import { findSavedEndpoint } from './endpoint-store.js';

// What every subcommand gets, and the lookups they share: which inbox, which token.

export interface CommandContext {
  settings: Readonly<CliSettings>;
  /** One line to stdout. */
  out: (line: string) => void;
  /** One line to stderr. */
  err: (line: string) => void;
  /** Aborted on SIGINT/SIGTERM: commands that run until stopped return. */
  signal: AbortSignal;
}

export const COMMON_OPTIONS = {
  host: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies ParseArgsConfig['options'];

/** node:util parseArgs, strict, with its errors as UsageError. */
export function parseCommandArgs<O extends NonNullable<ParseArgsConfig['options']>>(
  args: string[],
  options: O,
): {
  values: ReturnType<typeof parseArgs<{ options: O; allowPositionals: true }>>['values'];
  positionals: string[];
} {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (e: unknown) {
    throw new UsageError(e instanceof Error ? e.message : String(e), { cause: e });
  }
}

export function requireUrl(value: string | undefined, option: string): string {
  if (value === undefined) throw new UsageError(`${option} <url> is required`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new UsageError(`${option} ${value}: not a URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`${option} ${value}: expected an http or https URL`);
  }
  return value;
}

/** `--host`, else `INBOX_URL`, else the host the endpoint was created on, else the default. */
export function resolveHost(ctx: CommandContext, flag: string | undefined, savedHost?: string): string {
  return requireUrl(flag ?? ctx.settings.inboxUrl ?? savedHost ?? DEFAULT_INBOX_URL, '--host');
}

/** The inbox and token for an endpoint: `--token`, else `INBOX_TOKEN`, else the local store. */
export async function resolveAccess(
  ctx: CommandContext,
  endpointId: string,
  flags: { host?: string | undefined; token?: string | undefined },
): Promise<{ host: string; token: string }> {
  const saved = await findSavedEndpoint(ctx.settings.configPath, endpointId);
  const token = flags.token ?? ctx.settings.token ?? saved?.token;
  if (token === undefined) {
    throw new UsageError(
      `no token for endpoint ${endpointId}: pass --token, set INBOX_TOKEN, or create it with \`inbox forward\``,
    );
  }
  return { host: resolveHost(ctx, flags.host, saved?.host), token };
}

export function requireEndpointId(positionals: string[], usage: string): string {
  const [id, ...rest] = positionals;
  if (id === undefined) throw new UsageError(`an endpoint id is required\n${usage}`);
  if (rest.length > 0) throw new UsageError(`unexpected argument ${rest.join(' ')}\n${usage}`);
  return id;
}
