import { describe, expect, it } from 'vitest';
import { createEgressPolicy, type ResolveAll } from './egress-policy.js';

const resolveTo =
  (...addresses: string[]): ResolveAll =>
  () =>
    Promise.resolve(addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })));

describe('egress policy', () => {
  const strict = (resolve: ResolveAll) => createEgressPolicy({ allowPrivate: false, resolve });

  it.each([
    '127.0.0.1',
    '10.1.2.3',
    '172.20.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    'fe80::1',
    'fd00:ec2::254',
    '::ffff:127.0.0.1',
    '::ffff:7f00:1', // the same, in hexadecimal
    '::ffff:10.0.0.1',
    '::127.0.0.1', // IPv4-compatible (::/96, deprecated)
    '::7f00:1',
    '::93.184.216.34',
    '64:ff9b::127.0.0.1', // NAT64
    '64:ff9b::a00:1',
    '64:ff9b:1::a00:1', // local-use NAT64 (RFC 8215)
    'fec0::1', // site-local (deprecated, still routed inside some sites)
    '2001::a00:1', // Teredo
    '2001:2::1', // benchmarking
    '2001:db8::1',
    '2002:a00:1::', // 6to4 around 10.0.0.1
    '3fff::1', // documentation (RFC 9637)
    '100::1', // discard-only
    '5f00::1', // SRv6 segment identifiers
    '192.88.99.1', // the deprecated 6to4 relay anycast
    '198.18.0.1',
    '192.0.0.8',
  ])('refuses a name resolving to %s', async (address) => {
    expect(
      await strict(resolveTo('93.184.216.34', address)).check(new URL('https://hooks.example/')),
    ).toEqual({
      allowed: false,
      reason: 'hooks.example does not resolve to a public address',
      detail: `resolves to the non-public address ${address}`,
    });
  });

  it.each(['2606:2800:220:1:248:1893:25c8:1946', '2a00:1450:4001:80b::200e', '8.8.8.8'])(
    'allows the public address %s',
    async (address) => {
      expect((await strict(resolveTo(address)).check(new URL('https://hooks.example/'))).allowed).toBe(true);
    },
  );

  it('says the same to the client whether a name is internal or does not resolve, the cause in detail', async () => {
    const failing: ResolveAll = () => Promise.reject(Object.assign(new Error('no'), { code: 'ENOTFOUND' }));
    const refusal = (detail: string) => ({
      allowed: false,
      reason: 'nowhere.example does not resolve to a public address',
      detail,
    });
    const url = new URL('https://nowhere.example/');
    expect(await strict(failing).check(url)).toEqual(refusal('does not resolve (ENOTFOUND)'));
    expect(await strict(() => Promise.reject(new Error('no'))).check(url)).toEqual(
      refusal('does not resolve (no code)'),
    );
    expect(await strict(resolveTo()).check(url)).toEqual(refusal('does not resolve (no address)'));
    const lenient = createEgressPolicy({ allowPrivate: true, resolve: resolveTo() });
    expect(await lenient.check(url)).toEqual(refusal('does not resolve (no address)'));
  });

  // How a user types an internal address into a target URL: the WHATWG URL parser normalises the numeric
  // IPv4 forms, and names resolve through the system resolver (localhost from /etc/hosts), no network.
  it.each([
    'http://127.0.0.1/',
    'http://127.1/',
    'http://2130706433/',
    'http://0x7f000001/',
    'http://0x7f.0.0.1/',
    'http://0177.0.0.1/',
    'http://017700000001/',
    'http://127.000.000.001/',
    'http://0/',
    'http://0.0.0.0/',
    'http://10.0.0.1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://[::1]/',
    'http://[0:0:0:0:0:0:0:1]/',
    'http://[::]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:a9fe:a9fe]/',
    'http://[0:0:0:0:0:ffff:127.0.0.1]/',
    'http://[::127.0.0.1]/',
    'http://[64:ff9b::7f00:1]/',
    'http://[fd00:ec2::254]/',
    'http://[fe80::1]/',
    'http://localhost/',
    'http://LOCALHOST/',
    'https://127.0.0.1:443/',
    'http://%31%32%37.0.0.1/',
    'http://１２７.０.０.１/', // fullwidth digits, normalised by IDNA
  ])('refuses %s with the system resolver', async (target) => {
    expect(await createEgressPolicy({ allowPrivate: false }).check(new URL(target))).toEqual({
      allowed: false,
      reason: expect.stringMatching(/ does not resolve to a public address$/) as unknown,
      detail: expect.stringMatching(/^resolves to the non-public address /) as unknown,
    });
  });

  it('refuses literal private addresses, other schemes and credentials', async () => {
    const p = strict(resolveTo());
    expect((await p.check(new URL('http://[::1]:8080/'))).allowed).toBe(false);
    expect(await p.check(new URL('http://[::127.0.0.1]:8080/'))).toEqual({
      allowed: false,
      reason: '::7f00:1 does not resolve to a public address',
      detail: 'resolves to the non-public address ::7f00:1',
    });
    expect(await p.check(new URL('ftp://93.184.216.34/'))).toEqual({
      allowed: false,
      reason: 'scheme ftp: is not http or https',
    });
    for (const target of [
      'https://u:p@93.184.216.34/',
      'https://u@93.184.216.34/',
      'https://:p@93.184.216.34/',
    ]) {
      expect(await p.check(new URL(target))).toEqual({ allowed: false, reason: 'credentials in the URL' });
    }
  });

  it('pins the first checked address of a public name', async () => {
    expect(await strict(resolveTo('93.184.216.34')).check(new URL('https://hooks.example/'))).toEqual({
      allowed: true,
      address: '93.184.216.34',
      family: 4,
    });
    expect(
      await strict(resolveTo('2606:2800:220:1:248:1893:25c8:1946', '93.184.216.34')).check(
        new URL('https://hooks.example/'),
      ),
    ).toEqual({ allowed: true, address: '2606:2800:220:1:248:1893:25c8:1946', family: 6 });
  });

  it('allows private addresses when told to', async () => {
    const p = createEgressPolicy({ allowPrivate: true, resolve: resolveTo('10.0.0.5') });
    expect((await p.check(new URL('http://svc.local/'))).allowed).toBe(true);
  });
});
