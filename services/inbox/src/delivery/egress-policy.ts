import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

// Where the worker may send a capture. Every address a target's name resolves to is checked before each
// attempt, and the request is pinned to a checked address (deliver.ts), so a name cannot be re-pointed at
// an internal address between the check and the connection (DNS rebinding).

/**
 * A refusal's `reason` is for the client; `detail` (what a name resolves to, why it does not) only for the
 * log: a client must not learn the cluster's internal names and addresses by asking to reach them.
 */
export type EgressDecision =
  { allowed: true; address: string; family: 4 | 6 } | { allowed: false; reason: string; detail?: string };

export interface EgressPolicy {
  check(url: URL): Promise<EgressDecision>;
}

export type ResolveAll = (hostname: string) => Promise<Array<{ address: string; family: number }>>;

// The IANA special-purpose registries (IPv4 and IPv6) but for the globally reachable entries, and for IPv6
// everything outside global unicast (2000::/3).
const BLOCKED_V4 = [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // CGNAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, including the 169.254.169.254 metadata service
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24], // the deprecated 6to4 relay anycast
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const;

const BLOCKED_V6 = [
  // below global unicast: unspecified, loopback, IPv4-mapped and -compatible, NAT64 (64:ff9b::/96 and the
  // local-use 64:ff9b:1::/48, every embedded IPv4 address, public ones too), discard-only 100::/64
  ['::', 3],
  // above it: SRv6 5f00::/16, unique local fc00::/7 (fd00:ec2::254, a metadata service), link-local
  // fe80::/10, site-local fec0::/10, multicast ff00::/8
  ['4000::', 2],
  ['8000::', 1],
  ['2001::', 23], // IETF protocol assignments: Teredo 2001::/32 (embeds an IPv4 address), benchmarking
  ['2001:db8::', 32],
  ['2002::', 16], // 6to4, around any IPv4 address
  ['3fff::', 20], // documentation
] as const;

/**
 * The addresses no target may reach unless private egress is allowed, one list per family: BlockList checks
 * an IPv4 address against IPv6 rules as its mapped form (`::ffff:a.b.c.d`), which `::/3` would match.
 */
function isBlocked(): (address: string, family: 4 | 6) => boolean {
  const v4 = new BlockList();
  const v6 = new BlockList();
  for (const [net, prefix] of BLOCKED_V4) v4.addSubnet(net, prefix, 'ipv4');
  for (const [net, prefix] of BLOCKED_V6) v6.addSubnet(net, prefix, 'ipv6');
  return (address, family) => (family === 4 ? v4.check(address, 'ipv4') : v6.check(address, 'ipv6'));
}

const resolveWithDns: ResolveAll = (hostname) => lookup(hostname, { all: true, verbatim: true });

/** http(s) only, no credentials in the URL, and (unless `allowPrivate`) only public addresses. */
export function createEgressPolicy(o: { allowPrivate: boolean; resolve?: ResolveAll }): EgressPolicy {
  const blocked = isBlocked();
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
      const refuse = (detail: string): EgressDecision => ({
        allowed: false,
        reason: `${host} does not resolve to a public address`,
        detail,
      });
      let addresses: Array<{ address: string; family: number }>;
      if (isIP(host) !== 0) {
        addresses = [{ address: host, family: isIP(host) }];
      } else {
        try {
          addresses = await resolve(host);
        } catch (e: unknown) {
          return refuse(`does not resolve (${(e as NodeJS.ErrnoException).code ?? 'no code'})`);
        }
      }
      const first = addresses[0];
      if (!first) return refuse('does not resolve (no address)');
      if (!o.allowPrivate) {
        const bad = addresses.find((a) => blocked(a.address, a.family === 6 ? 6 : 4));
        if (bad) return refuse(`resolves to the non-public address ${bad.address}`);
      }
      return { allowed: true, address: first.address, family: first.family === 6 ? 6 : 4 };
    },
  };
}
