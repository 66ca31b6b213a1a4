import { readFileSync } from 'node:fs';
import { credentials, status as GrpcStatus, type ChannelCredentials } from '@grpc/grpc-js';
import { createCertificates, type TestCertificates } from '@portcullis/testing';
import { createSotwClient, type SotwServer } from '@portcullis/xds';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TYPE_A, openRawStream, quietLog, resource, startServer, texts } from './harness.js';

describe('mTLS', () => {
  let certs: TestCertificates;
  let stranger: TestCertificates;
  let server: SotwServer;

  beforeAll(async () => {
    [certs, stranger] = await Promise.all([createCertificates(), createCertificates()]);
    server = await startServer({
      tls: { cert: certs.serverCert, key: certs.serverKey, clientCa: certs.caCert },
    });
    server.setResources(TYPE_A, [resource('a')]);
  });
  afterAll(() => server.close());

  /** The status of a stream that sends one request with these credentials. */
  const refusal = (creds: ChannelCredentials) => {
    const raw = openRawStream(server.port, { credentials: creds });
    raw.send({ typeUrl: TYPE_A });
    return raw.status.finally(() => raw.close());
  };
  const pem = (path: string) => readFileSync(path);

  it('serves a client presenting a certificate from the trusted CA', async () => {
    const seen: string[] = [];
    const client = createSotwClient({
      serverUrl: `127.0.0.1:${server.port}`,
      nodeId: 'tls-node',
      typeUrls: [TYPE_A],
      onResources: (_t, _v, resources) =>
        void seen.push(...resources.map((r) => Buffer.from(r.value).toString())),
      retryIntervalMs: 100,
      log: quietLog,
      tls: {
        caCert: certs.caCert,
        clientCert: certs.clientCert,
        clientKey: certs.clientKey,
        serverNameOverride: 'localhost',
      },
    });
    client.start();
    await client.firstUpdate();
    await client.close();
    expect(seen).toEqual(['a=a']);

    const raw = openRawStream(server.port, {
      credentials: credentials.createSsl(pem(certs.caCert), pem(certs.clientKey), pem(certs.clientCert)),
    });
    raw.send({ typeUrl: TYPE_A });
    expect(texts(await raw.next())).toEqual(['a=a']);
    raw.close();
  });

  it('refuses a client without a certificate', async () => {
    expect(await refusal(credentials.createSsl(pem(certs.caCert)))).toMatchObject({
      code: GrpcStatus.UNAVAILABLE,
    });
  });

  it('refuses a client whose certificate another CA signed', async () => {
    const creds = credentials.createSsl(pem(certs.caCert), pem(stranger.clientKey), pem(stranger.clientCert));
    expect(await refusal(creds)).toMatchObject({ code: GrpcStatus.UNAVAILABLE });
  });

  it('refuses a plaintext client', async () => {
    expect(await refusal(credentials.createInsecure())).toMatchObject({ code: GrpcStatus.UNAVAILABLE });
  });

  it('the client refuses a server its CA did not sign', async () => {
    expect(
      await refusal(credentials.createSsl(pem(stranger.caCert), pem(certs.clientKey), pem(certs.clientCert))),
    ).toMatchObject({
      code: GrpcStatus.UNAVAILABLE,
    });
  });
});
