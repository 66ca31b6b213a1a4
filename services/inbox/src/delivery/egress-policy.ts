import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

// Where the worker may send a capture. Every address a target's name resolves to is checked before each
// attempt, and the request is pinned to a checked address (deliver.ts), so a name cannot be re-pointed at
// an internal address between the check and the connection (DNS rebinding).

export type EgressDecision =
  { allowed: true; address: string; family: 4 | 6 } | { allowed: false; reason: string };

export interface EgressPolicy {
  check(url: URL): Promise<EgressDecision>;
}

export type ResolveAll = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

const BLOCKED_V4 = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // CGNAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, including the 169.254.169.254 metadata service
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const;

const BLOCKED_V6 = [
  ['::', 96], // unspecified, loopback and the deprecated IPv4-compatible form (::127.0.0.1), never routed
  ['64:ff9b::', 96], // NAT64: every embedded IPv4 address, public ones too
  ['2001:db8::', 32],
  ['2002::', 16], // 6to4
  ['fc00::', 7], // unique local, including fd00:ec2::254 (metadata)
  ['fe80::', 10],
  ['ff00::', 8],
] as const;

/**
 * The addresses no target may reach unless private egress is allowed. IPv4-mapped IPv6 addresses
 * (`::ffff:127.0.0.1`, `::ffff:7f00:1`) are checked against the IPv4 rules by BlockList itself; a
 * `::ffff:0:0/96` rule would match every IPv4 address.
 */
export function createBlockList(): BlockList {
  const list = new BlockList();
  for (const [net, prefix] of BLOCKED_V4) list.addSubnet(net, prefix, 'ipv4');
  for (const [net, prefix] of BLOCKED_V6) list.addSubnet(net, prefix, 'ipv6');
  return list;
}

const resolveWithDns: ResolveAll = (hostname) => lookup(hostname, { all: true, verbatim: true });

/** http(s) only, no credentials in the URL, and (unless `allowPrivate`) only public addresses. */
export function createEgressPolicy(o: { allowPrivate: boolean; resolve?: ResolveAll }): EgressPolicy {
  const blocked = createBlockList();
  const resolve = o.resolve ?? resolveWithDns;
  return {
    async check(url) {
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        return { allowed: false, reason: `scheme ${url.protocol} is not http or https` };
      }
      if (url.username !== '' || url.password !== '') {
        return { allowed: false, reason: 'credentials in the URL' };
      }
      const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
      let addresses: Array<{ address: string; family: number }>;
      if (isIP(host) !== 0) {
        addresses = [{ address: host, family: isIP(host) }];
      } else {
        try {
          addresses = await resolve(host);
        } catch {
          return { allowed: false, reason: `${host} does not resolve` };
        }
      }
      const first = addresses[0];
      if (!first) return { allowed: false, reason: `${host} does not resolve` };
      if (!o.allowPrivate) {
        const bad = addresses.find((a) => blocked.check(a.address, a.family === 6 ? 'ipv6' : 'ipv4'));
        if (bad)
          return { allowed: false, reason: `${host} resolves to the non-public address ${bad.address}` };
      }
      return { allowed: true, address: first.address, family: first.family === 6 ? 6 : 4 };
    },
  };
}
