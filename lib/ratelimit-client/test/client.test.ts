import { readFileSync } from 'node:fs';
import { ServerCredentials } from '@grpc/grpc-js';
import { createEnvReader } from '@portcullis/kit';
import {
  createLocalLimiter,
  createLocalRateLimitClient,
  createRateLimitClient,
  readRateLimitTls,
  RateLimitClientClosedError,
  RateLimitClientOptionsError,
  type RateLimitClient,
  type RateLimitClientOptions,
} from '@portcullis/ratelimit-client';
import {
  createCertificates,
  createCollectingLog,
  freePort,
  quietLog,
  waitUntil,
  type TestCertificates,
} from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startRlsServer, useRlsServer, type RlsServer } from './rls-server.js';

const user = (value: string) => ({ entries: [{ key: 'user', value }] });

describe('createRateLimitClient against a real RateLimitService', () => {
  const { rls: server, open } = useRlsServer();

  it('allows, with the statuses and limit headers computed from them', async () => {
    const d = await open().decide({ domain: 'web', descriptors: [user('alice')] });
    expect(d).toEqual({
      allowed: true,
      overLimit: false,
      failedOpen: false,
      statuses: [
        { code: 'OK', limitRemaining: 9, requestsPerUnit: 10, unit: 'MINUTE', durationUntilResetSeconds: 30 },
      ],
      headers: [
        { key: 'RateLimit-Limit', value: '10' },
        { key: 'RateLimit-Remaining', value: '9' },
        { key: 'RateLimit-Reset', value: '30' },
      ],
    });
  });

  it('denies over the limit, with the headers of the status over its limit (remaining 0 off the wire)', async () => {
    const d = await open().decide({
      domain: 'web',
      descriptors: [user('alice'), user('blocked'), { entries: [{ key: 'unlimited', value: 'x' }] }],
    });
    expect(d).toMatchObject({ allowed: false, overLimit: true, failedOpen: false });
    expect(d.statuses).toEqual([
      { code: 'OK', limitRemaining: 9, requestsPerUnit: 10, unit: 'MINUTE', durationUntilResetSeconds: 30 },
      {
        code: 'OVER_LIMIT',
        limitRemaining: 0,
        requestsPerUnit: 2,
        unit: 'MINUTE',
        durationUntilResetSeconds: 42,
      },
      { code: 'OK' },
    ]);
    expect(d.headers).toEqual([
      { key: 'RateLimit-Limit', value: '2' },
      { key: 'RateLimit-Remaining', value: '0' },
      { key: 'RateLimit-Reset', value: '42' },
    ]);
  });

  it("passes the service's own headers through and adds none when it sent a limit header", async () => {
    const d = await open().decide({ domain: 'service-headers', descriptors: [user('alice')] });
    expect(d.headers).toEqual([
      { key: 'ratelimit-limit', value: '99' },
      { key: 'x-served-by', value: 'rls-test' },
    ]);
  });

  it('sends a per-descriptor hitsAddend as UInt64Value and the request one as a number', async () => {
    const before = server().requests.length;
    const d = await open().decide({
      domain: 'web',
      descriptors: [{ ...user('alice'), hitsAddend: 5 }, user('bob')],
      hitsAddend: 2,
    });
    expect(server().requests.slice(before)).toEqual([
      {
        domain: 'web',
        descriptors: [
          { entries: [{ key: 'user', value: 'alice' }], hitsAddend: { value: 5 } },
          { entries: [{ key: 'user', value: 'bob' }] },
        ],
        hitsAddend: 2,
      },
    ]);
    expect(d.statuses.map((s) => s.limitRemaining)).toEqual([5, 8]);
  });

  it('answers an UNKNOWN overall code by the failure mode', async () => {
    const client = open({ failureMode: 'allow' });
    const d = await client.decide({ domain: 'undecided', descriptors: [user('alice')] });
    expect(d).toEqual({ allowed: true, overLimit: false, failedOpen: true, headers: [], statuses: [] });
    expect(client.stats().failuresByReason).toEqual({ UNDECIDED: 1 });
  });

  it.each([
    ['allow', true, { calls: 3, failures: 3, failedOpen: 3, failedClosed: 0 }],
    ['deny', false, { calls: 3, failures: 3, failedOpen: 0, failedClosed: 3 }],
  ] as const)(
    'a dead service with failureMode %s: allowed=%s, one warning for three calls',
    async (mode, allowed, counts) => {
      const { log, lines } = createCollectingLog();
      const client = open({ target: `127.0.0.1:${await freePort()}`, failureMode: mode, log });
      for (let i = 0; i < 3; i++) {
        expect(await client.decide({ domain: 'web', descriptors: [user('alice')] })).toEqual({
          allowed,
          overLimit: false,
          failedOpen: true,
          headers: [],
          statuses: [],
        });
      }
      expect(client.stats()).toEqual({ ...counts, failuresByReason: { UNAVAILABLE: 3 } });
      expect(lines.filter((l) => l.level === 'warn')).toMatchObject([
        {
          '@message': 'ratelimit calls failing, answering by failure mode',
          component: 'ratelimit-client',
          grpcCode: 14,
          reason: 'UNAVAILABLE',
          failureMode: mode,
        },
      ]);
    },
  );

  it('asks the fallback limiter instead of allowing when the service cannot be asked (mode allow only)', async () => {
    const fallback = () =>
      createLocalLimiter({
        rules: [{ domain: 'web', entries: [{ key: 'user' }], requestsPerUnit: 2, unit: 'hour' }],
        maxKeys: 10,
      });
    const target = `127.0.0.1:${await freePort()}`;
    const allow = open({ target, failureMode: 'allow', fallback: fallback() });
    const ask = (c: RateLimitClient) => c.decide({ domain: 'web', descriptors: [user('alice')] });
    expect(await ask(allow)).toMatchObject({ allowed: true, local: true });
    expect(await ask(allow)).toMatchObject({ allowed: true, local: true });
    expect(await ask(allow)).toMatchObject({
      allowed: false,
      overLimit: true,
      failedOpen: false,
      local: true,
    });
    expect(allow.stats()).toMatchObject({ calls: 3, failures: 3, failedOpen: 3 });
    const deny = open({ target, failureMode: 'deny', fallback: fallback() });
    expect(await ask(deny)).toEqual({
      allowed: false,
      overLimit: false,
      failedOpen: true,
      headers: [],
      statuses: [],
    });

    const local = createLocalRateLimitClient(fallback());
    for (let i = 0; i < 2; i++) expect((await ask(local)).allowed).toBe(true);
    expect(await ask(local)).toMatchObject({ allowed: false, overLimit: true, local: true });
    local.close();
    await expect(ask(local)).rejects.toBeInstanceOf(RateLimitClientClosedError);
  });

  it('answers a call past its deadline by the failure mode, and recovers once the service is fast again', async () => {
    const { log, lines } = createCollectingLog();
    const client = open({ timeoutMs: 100, failureMode: 'deny', log });
    server().delayMs = 1000;
    try {
      const d = await client.decide({ domain: 'web', descriptors: [user('alice')] });
      expect(d).toMatchObject({ allowed: false, failedOpen: true });
      expect(client.stats().failuresByReason).toEqual({ DEADLINE_EXCEEDED: 1 });
    } finally {
      server().delayMs = 0;
    }
    expect(await client.decide({ domain: 'web', descriptors: [user('alice')] })).toMatchObject({
      allowed: true,
      failedOpen: false,
    });
    expect(lines.map((l) => [l.level, l.reason])).toEqual([
      ['warn', 'DEADLINE_EXCEEDED'],
      ['info', 'DEADLINE_EXCEEDED'],
    ]);
  });

  it('rejects a call after close()', async () => {
    const client = open();
    client.close();
    await expect(client.decide({ domain: 'web', descriptors: [user('a')] })).rejects.toBeInstanceOf(
      RateLimitClientClosedError,
    );
  });

  it('lists every unusable option', () => {
    expect(() =>
      createRateLimitClient({
        target: '127.0.0.1:1',
        xds: { serverUri: '127.0.0.1:2', nodeId: 'n' },
        timeoutMs: 0,
        failureMode: 'allow',
        log: quietLog,
      }),
    ).toThrow(
      new RateLimitClientOptionsError([
        'timeoutMs: expected a number > 0, got 0',
        'xds: a bootstrap is only used by an xds:/// target, got "127.0.0.1:1"',
      ]),
    );
  });
});

describe('a service that goes away and comes back', () => {
  it('fails open while it is down and answers again once grpc-js has reconnected', async () => {
    const rls = await startRlsServer();
    const { log, lines } = createCollectingLog();
    const client = createRateLimitClient({ target: rls.address, timeoutMs: 1000, failureMode: 'allow', log });
    const ask = () => client.decide({ domain: 'web', descriptors: [user('alice')] });
    try {
      expect(await ask()).toMatchObject({ allowed: true, failedOpen: false });
      rls.stop();
      expect(await ask()).toMatchObject({ allowed: true, failedOpen: true });
      expect(await ask()).toMatchObject({ allowed: true, failedOpen: true });
      await rls.restart();
      await waitUntil(async () => !(await ask()).failedOpen, 15_000);
      expect(client.stats()).toMatchObject({ failedOpen: client.stats().failures, failedClosed: 0 });
      expect(client.stats().failures).toBeGreaterThanOrEqual(2);
      // one line per change of reason, not per call: the first failure can be CANCELLED (the connection
      // closing under it) before the later ones are UNAVAILABLE
      const logged = lines.map((l) => [l.level, l['@message']]);
      expect(logged.at(-1)).toEqual(['info', 'ratelimit calls succeed again']);
      expect(new Set(logged.slice(0, -1).map((l) => l.join(' ')))).toEqual(
        new Set(['warn ratelimit calls failing, answering by failure mode']),
      );
      expect(logged.length).toBeLessThanOrEqual(3);
    } finally {
      client.close();
      rls.stop();
    }
  });
});

describe('over mTLS', () => {
  let certs: TestCertificates;
  let rls: RlsServer;
  const ask = (tls: RateLimitClientOptions['tls'], target = rls.address) => {
    const client = createRateLimitClient({
      target,
      timeoutMs: 2000,
      failureMode: 'allow',
      log: quietLog,
      tls,
    });
    return client.decide({ domain: 'web', descriptors: [user('alice')] }).finally(() => client.close());
  };

  beforeAll(async () => {
    certs = await createCertificates();
    const read = (path: string) => readFileSync(path);
    rls = await startRlsServer(
      ServerCredentials.createSsl(
        read(certs.caCert),
        [{ cert_chain: read(certs.serverCert), private_key: read(certs.serverKey) }],
        true,
      ),
    );
  });
  afterAll(() => rls.stop());

  it('decides with the CA and a client certificate', async () => {
    const tls = { caCert: certs.caCert, clientCert: certs.clientCert, clientKey: certs.clientKey };
    expect(await ask(tls)).toMatchObject({
      allowed: true,
      failedOpen: false,
      statuses: [{ limitRemaining: 9 }],
    });
    // the name the certificate carries, asked for by SAN instead of by the address
    expect(await ask({ ...tls, serverNameOverride: 'localhost' })).toMatchObject({ failedOpen: false });
  });

  it('fails by the failure mode without a client certificate, over plaintext, or for another name', async () => {
    expect(await ask({ caCert: certs.caCert })).toMatchObject({ allowed: true, failedOpen: true });
    expect(await ask(undefined)).toMatchObject({ failedOpen: true });
    const tls = { caCert: certs.caCert, clientCert: certs.clientCert, clientKey: certs.clientKey };
    expect(await ask({ ...tls, serverNameOverride: 'elsewhere.test' })).toMatchObject({ failedOpen: true });
  });
});

describe('readRateLimitTls', () => {
  const X = {
    enabled: 'X_TLS',
    caCert: 'X_TLS_CACERT',
    clientCert: 'X_TLS_CLIENT_CERT',
    clientKey: 'X_TLS_CLIENT_KEY',
    serverNameOverride: 'X_TLS_SAN',
  };

  it('reads nothing while TLS is off, and names a setting given without it', () => {
    expect(readRateLimitTls(createEnvReader({}), X)).toBeUndefined();
    const env = createEnvReader({ X_TLS_CACERT: '/etc/ca.pem' });
    expect(readRateLimitTls(env, X)).toBeUndefined();
    expect(() => env.finish()).toThrow('X_TLS_CACERT: set, but X_TLS is not true');
  });

  it('takes readable files and a SAN, and names an unreadable file and a lone certificate', async () => {
    const certs = await createCertificates();
    const ok = createEnvReader({
      X_TLS: 'true',
      X_TLS_CACERT: certs.caCert,
      X_TLS_CLIENT_CERT: certs.clientCert,
      X_TLS_CLIENT_KEY: certs.clientKey,
      X_TLS_SAN: 'rls.internal',
    });
    expect(readRateLimitTls(ok, X)).toEqual({
      caCert: certs.caCert,
      clientCert: certs.clientCert,
      clientKey: certs.clientKey,
      serverNameOverride: 'rls.internal',
    });
    ok.finish();
    const bad = createEnvReader({
      X_TLS: 'true',
      X_TLS_CACERT: '/nonexistent/ca.pem',
      X_TLS_CLIENT_CERT: certs.clientCert,
    });
    readRateLimitTls(bad, X);
    expect(() => bad.finish()).toThrow(/X_TLS_CACERT="\/nonexistent\/ca.pem": cannot read \(ENOENT\)/);
    expect(() => bad.finish()).toThrow('X_TLS_CLIENT_CERT, X_TLS_CLIENT_KEY: set both or neither');
  });
});
