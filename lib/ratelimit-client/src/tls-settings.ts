import { accessSync, constants } from 'node:fs';
import type { EnvReader } from '@portcullis/kit';
import type { ClientTlsOptions } from '@portcullis/xds';

/**
 * The variables of a rate-limit client's TLS settings, each spelled whole (`GATEWAY_RATELIMIT_TLS_CACERT`,
 * in client-settings.ts' tables), so a grep for a name finds its reader.
 */
export interface RateLimitTlsNames {
  /** `true` turns TLS on; without it the other variables must stay unset. */
  readonly enabled: string;
  /** The CA of the service's certificate; the system roots when empty. */
  readonly caCert: string;
  /** With `clientKey`: a client certificate, for a service that requires one. */
  readonly clientCert: string;
  readonly clientKey: string;
  /** The name the service's certificate carries, when it is not the host of the URL. */
  readonly serverNameOverride: string;
}

const FILES: ReadonlySet<keyof ClientTlsOptions> = new Set(['caCert', 'clientCert', 'clientKey']);

/**
 * The TLS settings of a service's rate-limit client, from the variables `names` gives. Undefined when TLS is
 * off. A file that cannot be read, or a setting given while TLS is off, is a problem of `env`, named by its
 * variable.
 */
export function readRateLimitTls(env: EnvReader, names: RateLimitTlsNames): ClientTlsOptions | undefined {
  const enabled = env.bool(names.enabled, { default: false });
  const tls: ClientTlsOptions = {};
  for (const option of ['caCert', 'clientCert', 'clientKey', 'serverNameOverride'] as const) {
    const name = names[option];
    const value = env.str(name);
    if (value === '') continue;
    if (!enabled) env.problem(`${name}: set, but ${names.enabled} is not true`);
    const unreadable = FILES.has(option) ? unreadableReason(value) : undefined;
    if (unreadable) env.problem(`${name}="${value}": cannot read (${unreadable})`);
    tls[option] = value;
  }
  if (!enabled) return undefined;
  if (!tls.clientCert !== !tls.clientKey) {
    env.problem(`${names.clientCert}, ${names.clientKey}: set both or neither`);
  }
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
