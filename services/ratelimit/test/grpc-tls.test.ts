import { readFileSync } from 'node:fs';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { credentials, status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import type { Logger } from '@portcullis/kit';
import {
  createCertificates,
  createCollectingLog,
  waitUntil,
  type TestCertificates,
} from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRlsClient, createRuntimeRoot, startHarness, type Harness } from './harness.js';

const CONFIG = 'domain: d\ndescriptors:\n  - key: k\n    rate_limit: {unit: hour, requests_per_unit: 100}\n';
const REQUEST = { domain: 'd', descriptors: [{ entries: [{ key: 'k', value: 'v' }] }] };

describe('gRPC server TLS and mTLS', () => {
  let certs: TestCertificates;
  let rogue: TestCertificates;
  const harnesses: Harness[] = [];

  beforeAll(async () => {
    certs = await createCertificates('client.test');
    rogue = await createCertificates('client.test');
  });
  afterAll(async () => {
    await Promise.all(harnesses.map((h) => h.close()));
    await rm(certs.dir, { recursive: true, force: true });
    await rm(rogue.dir, { recursive: true, force: true });
  });

  async function start(env: Record<string, string>, log?: Logger): Promise<string> {
    const at = await createRuntimeRoot({ 'd.yaml': CONFIG });
    const h = await startHarness(
      {},
      {
        GRPC_SERVER_USE_TLS: 'true',
        GRPC_SERVER_TLS_CERT: certs.serverCert,
        GRPC_SERVER_TLS_KEY: certs.serverKey,
        ...env,
      },
      log ? { ...at, log } : at,
    );
    harnesses.push(h);
    return `localhost:${h.app.ports.grpc}`;
  }

  const ask = async (address: string, creds: ReturnType<typeof credentials.createSsl>) => {
    const client = createRlsClient(address, creds);
    try {
      return await client.shouldRateLimit(REQUEST);
    } finally {
      client.close();
    }
  };
  const clientOf = (c: TestCertificates, ca = certs.caCert) =>
    credentials.createSsl(readFileSync(ca), readFileSync(c.clientKey), readFileSync(c.clientCert));
  const serverOnly = () => credentials.createSsl(readFileSync(certs.caCert));
  const codeOf = (p: Promise<unknown>) =>
    p.then(
      () => 'answered',
      (e: unknown) => (e as ServiceError).code,
    );

  it('serves TLS and refuses plaintext', async () => {
    const address = await start({});
    expect(await ask(address, serverOnly())).toMatchObject({ overallCode: 'OK' });
    expect(await codeOf(ask(address, credentials.createInsecure()))).toBe(GrpcStatus.UNAVAILABLE);
  });

  it('with a client CA, answers a client certificate it signed and refuses none or another CA’s', async () => {
    const address = await start({ GRPC_CLIENT_TLS_CACERT: certs.caCert });
    expect(await ask(address, clientOf(certs))).toMatchObject({ overallCode: 'OK' });
    expect(await codeOf(ask(address, serverOnly()))).toBe(GrpcStatus.UNAVAILABLE);
    expect(await codeOf(ask(address, clientOf(rogue)))).toBe(GrpcStatus.UNAVAILABLE);
  });

  it('checks GRPC_CLIENT_TLS_SAN against the client certificate', async () => {
    const matching = await start({
      GRPC_CLIENT_TLS_CACERT: certs.caCert,
      GRPC_CLIENT_TLS_SAN: 'client.test',
    });
    expect(await ask(matching, clientOf(certs))).toMatchObject({ overallCode: 'OK' });

    const other = await start({ GRPC_CLIENT_TLS_CACERT: certs.caCert, GRPC_CLIENT_TLS_SAN: 'other.test' });
    const refused = await ask(other, clientOf(certs)).catch((e: unknown) => e as ServiceError);
    expect(refused).toMatchObject({
      code: GrpcStatus.UNAUTHENTICATED,
      details: 'client certificate does not name other.test',
    });
  });

  it('serves renewed certificates without a restart, and keeps the last good ones when new files are broken', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'grpc-tls-reload-'));
    const cert = join(dir, 'tls.crt');
    const key = join(dir, 'tls.key');
    const install = async (c: TestCertificates) => {
      await copyFile(c.serverCert, cert);
      await copyFile(c.serverKey, key);
    };
    await install(certs);
    const { log, lines } = createCollectingLog();
    const address = await start(
      {
        GRPC_SERVER_TLS_CERT: cert,
        GRPC_SERVER_TLS_KEY: key,
        GRPC_SERVER_TLS_RELOAD_INTERVAL: '100ms',
      },
      log,
    );
    // a channel of its own each time, so no connection made before a renewal is reused after it
    const trusting = (ca: string) =>
      codeOf(
        (async () => {
          const client = createRlsClient(address, credentials.createSsl(readFileSync(ca)), {
            'grpc.use_local_subchannel_pool': 1,
          });
          try {
            return await client.shouldRateLimit(REQUEST);
          } finally {
            client.close();
          }
        })(),
      );
    expect(await trusting(certs.caCert)).toBe('answered');

    await install(rogue); // renewed by another CA
    await waitUntil(async () => (await trusting(rogue.caCert)) === 'answered', 10_000);
    expect(await trusting(certs.caCert)).toBe(GrpcStatus.UNAVAILABLE);

    await writeFile(key, readFileSync(certs.serverKey)); // a key that is not the certificate's
    // the reload that read the broken pair, and left the served one alone
    await waitUntil(() =>
      lines.some(
        (l) => l['@message'] === 'new TLS files do not make a valid TLS context; keeping the last good ones',
      ),
    );
    expect(await trusting(rogue.caCert)).toBe('answered');
    await rm(dir, { recursive: true, force: true });
  });

  it('stops start-up naming a certificate and key that do not belong together', async () => {
    await expect(
      startHarness(
        { 'd.yaml': CONFIG },
        {
          GRPC_SERVER_USE_TLS: 'true',
          GRPC_SERVER_TLS_CERT: certs.serverCert,
          GRPC_SERVER_TLS_KEY: rogue.serverKey,
        },
      ),
    ).rejects.toMatchObject({
      problems: [expect.stringMatching(/^GRPC_SERVER_TLS_CERT, GRPC_SERVER_TLS_KEY: not a usable TLS set/)],
    });
  });

  it('stops start-up naming an unreadable certificate file', async () => {
    await expect(
      startHarness(
        { 'd.yaml': CONFIG },
        {
          GRPC_SERVER_USE_TLS: 'true',
          GRPC_SERVER_TLS_CERT: '/nonexistent.crt',
          GRPC_SERVER_TLS_KEY: certs.serverKey,
        },
      ),
    ).rejects.toMatchObject({ problems: ['GRPC_SERVER_TLS_CERT="/nonexistent.crt": cannot read (ENOENT)'] });
  });
});
