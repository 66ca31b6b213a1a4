import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { promisify } from 'node:util';
import {
  createCertificates,
  peerPath,
  startRateLimitProcess,
  startRedis,
  type RedisServer,
  type TestCertificates,
} from '@portcullis/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * Upstream's own client (`src/client_cmd`, built as ratelimit-upstream-client) asks our service over gRPC,
 * plaintext and with mutual TLS (its -grpc-use-tls, -grpc-server-ca-file, -grpc-cert-file, -grpc-key-file).
 */

const run = promisify(execFile);

const CONFIG = `
domain: interop
descriptors:
  - key: user
    rate_limit: { unit: hour, requests_per_unit: 2 }
  - key: path
    value: /login
    descriptors:
      - key: user
        rate_limit: { unit: day, requests_per_unit: 1 }
`;

/** client_cmd's exit code and what it printed: `response: <RateLimitResponse in Go's text form>` on success. */
async function askWithClient(args: readonly string[]): Promise<{ exitCode: number; out: string }> {
  try {
    const { stdout } = await run(peerPath('ratelimit-upstream-client'), [...args], { timeout: 30_000 });
    return { exitCode: 0, out: stdout };
  } catch (err: unknown) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { exitCode: e.code ?? -1, out: `${e.stdout ?? ''}${e.stderr ?? ''}` };
  }
}

function overallCode(out: string): string | undefined {
  return /^response: overall_code:(\w+)/m.exec(out)?.[1];
}

describe("upstream's client_cmd against our service", () => {
  let certs: TestCertificates;
  let redis: RedisServer;
  let plain: Awaited<ReturnType<typeof startRateLimitProcess>>;
  let mtls: Awaited<ReturnType<typeof startRateLimitProcess>>;

  beforeAll(async () => {
    certs = await createCertificates();
    redis = await startRedis();
    const backend = { BACKEND_TYPE: 'redis', KVSTORE_URL: redis.address };
    plain = await startRateLimitProcess({ 'interop.yaml': CONFIG }, backend, 60_000);
    mtls = await startRateLimitProcess(
      { 'interop.yaml': CONFIG },
      {
        ...backend,
        CACHE_KEY_PREFIX: 'mtls_',
        GRPC_SERVER_USE_TLS: 'true',
        GRPC_SERVER_TLS_CERT: certs.serverCert,
        GRPC_SERVER_TLS_KEY: certs.serverKey,
        GRPC_CLIENT_TLS_CACERT: certs.caCert,
        GRPC_CLIENT_TLS_SAN: 'client.test',
      },
      60_000,
    );
  }, 120_000);
  afterAll(async () => {
    await plain.stop();
    await mtls.stop();
    await redis.stop();
    await rm(certs.dir, { recursive: true, force: true });
  });

  it('gets OK, then OVER_LIMIT after the limit, with the limit in the response (plaintext)', async () => {
    const ask = (descriptors: string) =>
      askWithClient([
        `-dial_string=127.0.0.1:${plain.ports.grpc}`,
        '-domain=interop',
        `-descriptors=${descriptors}`,
      ]);
    const answers = [await ask('user=ann'), await ask('user=ann'), await ask('user=ann')];
    expect(answers.map((a) => overallCode(a.out))).toEqual(['OK', 'OK', 'OVER_LIMIT']);
    expect(answers[0]?.out).toMatch(
      /statuses:\{code:OK current_limit:\{requests_per_unit:2 unit:HOUR\} limit_remaining:1 duration_until_reset:\{seconds:\d+\}\}/,
    );
    const nested = [await ask('path=/login,user=ann'), await ask('path=/login,user=ann')];
    expect(nested.map((a) => overallCode(a.out))).toEqual(['OK', 'OVER_LIMIT']);
  });

  it('gets answers over mutual TLS with a client certificate the service trusts', async () => {
    const tlsArgs = [
      `-dial_string=127.0.0.1:${mtls.ports.grpc}`,
      '-domain=interop',
      '-descriptors=user=tls',
      '-grpc-use-tls',
      `-grpc-server-ca-file=${certs.caCert}`,
    ];
    const withCert = await askWithClient([
      ...tlsArgs,
      `-grpc-cert-file=${certs.clientCert}`,
      `-grpc-key-file=${certs.clientKey}`,
    ]);
    expect(withCert.exitCode, withCert.out).toBe(0);
    expect(overallCode(withCert.out)).toBe('OK');
    const withoutCert = await askWithClient(tlsArgs);
    expect(withoutCert.exitCode).toBe(1);
    expect(withoutCert.out).toMatch(/request error: rpc error: code = Unavailable/);
    const plaintext = await askWithClient(tlsArgs.filter((a) => !a.startsWith('-grpc-')));
    expect(plaintext.exitCode).toBe(1);
  });
});
