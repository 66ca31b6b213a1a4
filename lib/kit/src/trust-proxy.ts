import { isIP } from 'node:net';
import { parseBoolean, type EnvReader } from './env.js';

/**
 * Whose `X-Forwarded-For`/`-Proto`/`-Host` a server believes: nobody (`false`), any peer (`true`), or peers
 * at these addresses, CIDR ranges and proxy-addr names (`loopback`, `linklocal`, `uniquelocal`).
 */
export type TrustProxy = boolean | readonly string[];

const RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * Reads a trust-proxy variable, named whole by the caller (`GATEWAY_TRUST_PROXY`): empty or `false` trusts
 * nobody, `true` every peer, else a comma-separated list (`10.0.0.0/8, 127.0.0.1`).
 */
export function readTrustProxy(env: EnvReader, name: string): TrustProxy {
  const raw = env.str(name).trim();
  if (raw === '') return false;
  const flag = parseBoolean(raw);
  if (flag !== undefined) return flag;
  const entries = env.list(name);
  if (entries.every(isAddressOrRange)) return entries;
  env.problem(
    `${name}=${JSON.stringify(raw)}: expected true, false or a comma-separated list of IP addresses and CIDR ranges`,
  );
  return false;
}

function isAddressOrRange(entry: string): boolean {
  if (RANGE_NAMES.has(entry)) return true;
  const [address = '', bits, ...rest] = entry.split('/');
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return false;
  return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (version === 4 ? 32 : 128));
}
