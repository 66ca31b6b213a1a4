import { describe, expect, it } from 'vitest';
import { canonical, comparableGrpc, comparableJson, resetsDiffer } from './compare.js';
import { usePair } from './pair.js';

// Issue 40: statistic names as upstream's SanitizeStatName writes them (`:` and `|` to `_`, the dots of every
// dotted IPv4 address to `_`, over the whole `<domain>.<descriptor>` name), compared with the peer's.

// the upstream README's "blacklist" example, word for word
const BLACKLIST = `domain: edge_proxy_per_ip
descriptors:
  - key: remote_address
    rate_limit: {unit: second, requests_per_unit: 10}
  - key: remote_address
    value: 50.0.0.5
    rate_limit: {unit: second, requests_per_unit: 0}
`;

// a domain holding an address and both separators; values with addresses alone, embedded, too long to be
// one, IPv6 forms (upstream leaves their colons' neighbours alone) and other punctuation
const PUNCTUATION_DOMAIN = 'edge.10.0.0.1:8080|x';
const PUNCTUATION = `domain: "${PUNCTUATION_DOMAIN}"
descriptors:
  - key: addr
    value: 10.0.0.1:8080
    rate_limit: {unit: hour, requests_per_unit: 1}
  - key: addr
    value: a.1.2.3.4.b
    rate_limit: {unit: hour, requests_per_unit: 5}
  - key: addr
    value: "2001:db8::1"
    rate_limit: {unit: hour, requests_per_unit: 5}
  - key: addr
    value: "10.0.*"
    rate_limit: {unit: hour, requests_per_unit: 5}
  - key: addr
    rate_limit: {unit: hour, requests_per_unit: 5}
  - key: per-value
    detailed_metric: true
    rate_limit: {unit: hour, requests_per_unit: 5}
  - key: client
    value_to_metric: true
    descriptors:
      - key: path|x
        rate_limit: {unit: hour, requests_per_unit: 5}
`;

// key-only levels whose names are numbers: the address straddles the domain and three levels
const STRADDLE = `domain: edge-1
descriptors:
  - key: "2"
    descriptors:
      - key: "3"
        descriptors:
          - key: "4"
            rate_limit: {unit: hour, requests_per_unit: 5}
`;

const entries = (...pairs: Array<[string, string]>) => ({
  entries: pairs.map(([key, value]) => ({ key, value })),
});
const one = (...pairs: Array<[string, string]>): object => ({ descriptors: [entries(...pairs)] });

const ADDRESS_VALUES = [
  '10.0.0.1',
  '10.0.0.1:8080',
  '10.0.0.12',
  'a.1.2.3.4.b',
  '1.2.3.4.5',
  '1234.5.6.7',
  '999.888.777.666',
  '1.2.3',
  '2001:db8::1',
  '::ffff:10.0.0.1',
  'fe80::1%eth0',
  '[::1]:443',
  'a|b:c',
  'x=y,z;w',
  'sp ace/@#',
  'é.1.2.3.4',
];

describe('differential: statistic names as upstream writes them (issue 40)', () => {
  const pair = usePair({
    files: { 'blacklist.yaml': BLACKLIST, 'punctuation.yaml': PUNCTUATION, 'straddle.yaml': STRADDLE },
  });

  const askBoth = async (requests: ReadonlyArray<readonly [domain: string, request: object]>) => {
    const found: string[] = [];
    for (const [i, [domain, request]] of requests.entries()) {
      const body = { domain, ...request };
      if (i % 2 === 0) {
        const a = await pair.ask(body);
        const [u, o] = [comparableGrpc(a.upstream), comparableGrpc(a.ours)];
        if (canonical(u.decision) !== canonical(o.decision) || resetsDiffer(u.resets, o.resets))
          found.push(`grpc #${i}: upstream ${canonical(u)} ours ${canonical(o)}`);
      } else {
        const a = await pair.askJson(JSON.stringify(body));
        const [u, o] = [comparableJson(a.upstream), comparableJson(a.ours)];
        const [cu, co] = [u.comparable, o.comparable];
        if (
          u.status !== o.status ||
          canonical(cu?.decision) !== canonical(co?.decision) ||
          resetsDiffer(cu?.resets ?? [], co?.resets ?? [])
        )
          found.push(`json #${i}: upstream ${u.status} ${canonical(cu)} ours ${o.status} ${canonical(co)}`);
      }
    }
    return found;
  };

  const statistics = async (domainPrefix: string) => {
    const counters = await pair.counters();
    const pick = (m: Map<string, number>): Record<string, number> =>
      Object.fromEntries(
        [...m]
          .filter(([k, v]) => k.startsWith(`ratelimit.service.rate_limit.${domainPrefix}`) && v !== 0)
          .sort(([a], [b]) => (a < b ? -1 : 1)),
      );
    return { upstream: pick(counters.upstream), ours: pick(counters.ours) };
  };

  it('blacklist: one request from 50.0.0.5 counts remote_address_50_0_0_5.over_limit, as upstream', async () => {
    expect(await askBoth([['edge_proxy_per_ip', one(['remote_address', '50.0.0.5'])]])).toEqual([]);
    const { upstream, ours } = await statistics('edge_proxy_per_ip.');
    expect(
      upstream['ratelimit.service.rate_limit.edge_proxy_per_ip.remote_address_50_0_0_5.over_limit'],
    ).toBe(1);
    expect(ours).toEqual(upstream);
  });

  it('addresses, separators, IPv6 forms and punctuation in domains, rules, values and overrides', async () => {
    const requests: Array<[string, object]> = [];
    for (const value of ADDRESS_VALUES) {
      requests.push([PUNCTUATION_DOMAIN, one(['addr', value])]);
      requests.push([PUNCTUATION_DOMAIN, one(['per-value', value])]);
      requests.push([PUNCTUATION_DOMAIN, one(['client', value], ['path|x', value])]);
      requests.push([
        PUNCTUATION_DOMAIN,
        { descriptors: [{ ...entries(['o', value]), limit: { requestsPerUnit: 3, unit: 'HOUR' } }] },
      ]);
      requests.push([`nowhere.${value}`, one(['addr', value])]);
    }
    requests.push(['edge-1', one(['2', 'v'], ['3', 'w'], ['4', 'x'])]);
    requests.push(['edge-1', one(['2', ''], ['3', ''], ['4', '5.6'])]);
    expect(await askBoth(requests)).toEqual([]);
    const { upstream, ours } = await statistics('');
    // the peer rewrote what it should, so the comparison below is about names upstream changes
    expect(Object.keys(upstream)).toContain(
      'ratelimit.service.rate_limit.edge.10_0_0_1_8080_x.addr_10_0_0_1_8080.total_hits',
    );
    expect(Object.keys(upstream)).toContain('ratelimit.service.rate_limit.edge-1_2_3_4.total_hits');
    expect(ours).toEqual(upstream);
  });
});
