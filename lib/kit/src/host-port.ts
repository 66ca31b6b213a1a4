import { SettingsError } from './errors.js';

export interface HostPort {
  host: string;
  port: number;
}

/**
 * `host:port`, `[v6]:port`, `host`, `[v6]` or a bare IPv6 address, with `defaultPort` when none is given; an
 * IPv6 host comes back without its brackets. An empty host or a port that is not a whole number from 1 to
 * 65535 throws `SettingsError`: every such address comes from a setting.
 */
export function splitHostPort(address: string, defaultPort: number): HostPort {
  const bracketed = /^\[([^\]]*)\](?::(.*))?$/.exec(address);
  const parts = address.split(':');
  const [host, port] = bracketed
    ? [bracketed[1] ?? '', bracketed[2]]
    : parts.length === 2
      ? [parts[0] ?? '', parts[1]]
      : [address, undefined];
  if (host === '') throw new SettingsError([`"${address}": expected host:port, and no host is given`]);
  if (port === undefined) return { host, port: defaultPort };
  const n = /^\d{1,5}$/.test(port) ? Number(port) : NaN;
  if (!(n >= 1 && n <= 65_535)) {
    throw new SettingsError([`"${address}": expected host:port with a port from 1 to 65535`]);
  }
  return { host, port: n };
}
