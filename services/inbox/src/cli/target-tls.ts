import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { rootCertificates } from 'node:tls';
import type { TargetTls } from '../delivery/deliver.js';
import { UsageError } from './cli-errors.js';
import type { CommandContext } from './command-context.js';

// `--ca` and `--insecure`: how the CLI checks an https target's certificate. They reach only the connection
// to the target (sendCapture); the inbox API is always verified against the system roots.

export const TARGET_TLS_OPTIONS = {
  ca: { type: 'string' },
  insecure: { type: 'boolean' },
} as const;

/** The options' lines for a command's help, descriptions starting at `column` like its other options'. */
export function targetTlsHelp(column: number): string {
  const line = (flag: string, text: string): string => `  ${flag}`.padEnd(column) + text;
  return [
    line('--ca <file>', "also trust an https target's certificate signed by this PEM CA (or this"),
    line('', 'self-signed certificate), besides the system roots'),
    line('--insecure', "do not verify an https target's certificate (warns on stderr); not with --ca"),
  ].join('\n');
}

/** The options for the target's TLS, or undefined for the default (verified against the system roots). */
export async function resolveTargetTls(
  ctx: CommandContext,
  flags: { ca?: string | undefined; insecure?: boolean | undefined },
): Promise<TargetTls | undefined> {
  if (flags.insecure === true && flags.ca !== undefined) {
    throw new UsageError('--ca and --insecure cannot be used together: --ca verifies, --insecure does not');
  }
  if (flags.insecure === true) {
    ctx.err("inbox: warning: --insecure: the target's TLS certificate is not verified");
    return { rejectUnauthorized: false };
  }
  if (flags.ca === undefined) return undefined;
  let pem: string;
  try {
    pem = await readFile(flags.ca, 'utf8');
  } catch (e: unknown) {
    const code = (e as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new UsageError(`--ca ${flags.ca}: cannot read the file (${code})`, { cause: e });
  }
  try {
    // X509Certificate accepts DER too; the TLS layer does not
    if (!pem.includes('-----BEGIN CERTIFICATE-----')) throw new Error('no PEM certificate');
    new X509Certificate(pem);
  } catch (e: unknown) {
    throw new UsageError(`--ca ${flags.ca}: not a PEM certificate`, { cause: e });
  }
  return { ca: [...rootCertificates, pem], rejectUnauthorized: true };
}
