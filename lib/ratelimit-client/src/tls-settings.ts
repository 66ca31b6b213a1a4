import { accessSync, constants } from 'node:fs';
import type { EnvReader } from '@portcullis/kit';
import type { ClientTlsOptions } from '@portcullis/xds';

/** Variable suffix of each option; all but `SAN` name files. */
const SUFFIXES: Readonly<Record<keyof ClientTlsOptions, string>> = {
  caCert: 'CACERT',
  clientCert: 'CLIENT_CERT',
  clientKey: 'CLIENT_KEY',
  serverNameOverride: 'SAN',
};

/**
 * The TLS settings of a service's rate-limit client, `<prefix>_TLS=true` and: `_TLS_CACERT` (the CA of the
 * service's certificate; the system roots when empty), `_TLS_CLIENT_CERT` with `_TLS_CLIENT_KEY` (for a
 * service that requires client certificates) and `_TLS_SAN` (the name its certificate carries, when not the
 * host of the URL). Undefined when TLS is off. A file that cannot be read, or a setting without
 * `<prefix>_TLS=true`, is a problem of `env`, named by its variable.
 */
export function readRateLimitTls(env: EnvReader, prefix: string): ClientTlsOptions | undefined {
  const enabled = env.bool(`${prefix}_TLS`, { default: false });
  const tls: ClientTlsOptions = {};
  for (const [option, suffix] of Object.entries(SUFFIXES) as Array<[keyof ClientTlsOptions, string]>) {
    const name = `${prefix}_TLS_${suffix}`;
    const value = env.str(name);
    if (value === '') continue;
    if (!enabled) env.problem(`${name}: set, but ${prefix}_TLS is not true`);
    const unreadable = suffix === 'SAN' ? undefined : unreadableReason(value);
    if (unreadable) env.problem(`${name}="${value}": cannot read (${unreadable})`);
    tls[option] = value;
  }
  if (!enabled) return undefined;
  if (!tls.clientCert !== !tls.clientKey)
    env.problem(`${prefix}_TLS_CLIENT_CERT, ${prefix}_TLS_CLIENT_KEY: set both or neither`);
  return tls;
}

function unreadableReason(path: string): string | undefined {
  try {
    accessSync(path, constants.R_OK);
    return undefined;
  } catch (err: unknown) {
    return (err as NodeJS.ErrnoException).code ?? 'error';
  }
}
