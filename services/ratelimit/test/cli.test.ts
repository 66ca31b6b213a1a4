import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createCertificates, freePort, type TestCertificates } from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './harness.js';

const bin = join(import.meta.dirname, '../../../node_modules/.bin/ratelimit-client');
const CONFIG = `domain: d
descriptors:
  - key: k
    rate_limit: {unit: hour, requests_per_unit: 1}
  - key: a
    descriptors:
      - key: b
        rate_limit: {unit: minute, requests_per_unit: 5}
`;

/** Runs the installed command as a user would; never rejects. */
function client(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(bin, args, { timeout: 20_000 }, (err, stdout, stderr) =>
      resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('ratelimit-client', () => {
  let certs: TestCertificates;
  let plain: Harness;
  let mtls: Harness;

  beforeAll(async () => {
    certs = await createCertificates();
    plain = await startHarness({ 'd.yaml': CONFIG });
    mtls = await startHarness(
      { 'd.yaml': CONFIG },
      {
        GRPC_SERVER_USE_TLS: 'true',
        GRPC_SERVER_TLS_CERT: certs.serverCert,
        GRPC_SERVER_TLS_KEY: certs.serverKey,
        GRPC_CLIENT_TLS_CACERT: certs.caCert,
      },
    );
  });
  afterAll(async () => {
    await plain.close();
    await mtls.close();
    await rm(certs.dir, { recursive: true, force: true });
  });

  it('prints the response of one ShouldRateLimit call, one descriptor per -descriptors', async () => {
    const args = ['-dial_string', `127.0.0.1:${plain.app.ports.grpc}`, '-domain', 'd'];
    const r = await client([...args, '-descriptors', 'k=v', '-descriptors', 'a=1,b=2']);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(r.stdout)).toMatchObject({
      overallCode: 'OK',
      statuses: [
        { code: 'OK', currentLimit: { requestsPerUnit: 1, unit: 'HOUR' }, limitRemaining: 0 },
        { code: 'OK', currentLimit: { requestsPerUnit: 5, unit: 'MINUTE' }, limitRemaining: 4 },
      ],
    });
    const over = await client([...args, '-descriptors', 'k=v']);
    expect(over.code).toBe(0);
    expect(JSON.parse(over.stdout)).toMatchObject({ overallCode: 'OVER_LIMIT' });
  });

  it('speaks mTLS with the TLS flags', async () => {
    const r = await client([
      '-dial_string',
      `localhost:${mtls.app.ports.grpc}`,
      '-domain',
      'd',
      '-descriptors',
      'a=1,b=2',
      '-grpc-use-tls',
      '-grpc-server-ca-file',
      certs.caCert,
      '-grpc-cert-file',
      certs.clientCert,
      '-grpc-key-file',
      certs.clientKey,
    ]);
    expect(r).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(r.stdout)).toMatchObject({ overallCode: 'OK', statuses: [{ limitRemaining: 4 }] });
  });

  it('exits 1 on a transport error: nothing listening, or TLS refused', async () => {
    const closed = await client([
      '-dial_string',
      `127.0.0.1:${await freePort()}`,
      '-domain',
      'd',
      '-descriptors',
      'k=v',
    ]);
    expect(closed).toMatchObject({ code: 1, stdout: '' });
    expect(closed.stderr).toMatch(/^ratelimit-client: request error: 14 UNAVAILABLE/);

    const noClientCert = await client([
      '-dial_string',
      `localhost:${mtls.app.ports.grpc}`,
      '-domain',
      'd',
      '-descriptors',
      'k=v',
      '-grpc-use-tls',
      '-grpc-server-ca-file',
      certs.caCert,
    ]);
    expect(noClientCert).toMatchObject({ code: 1, stdout: '' });
    expect(noClientCert.stderr).toMatch(/request error: 14 UNAVAILABLE/);
  });

  it('exits 2 on a bad flag or an unreadable certificate file, naming it', async () => {
    const r = await client(['-domian', 'd']);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^ratelimit-client: flag provided but not defined: -domian\nUsage:/);
    const missing = await client(['-grpc-use-tls', '-grpc-cert-file', '/nonexistent.pem', '-domain', 'd']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(
      /^ratelimit-client: -grpc-cert-file "\/nonexistent.pem": cannot read \(ENOENT\)/,
    );
  });
});
