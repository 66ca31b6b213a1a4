import { spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort, startRedis, waitUntil } from '@portcullis/testing';
import { describe, expect, it } from 'vitest';
import { createRlsClient, createRuntimeRoot } from './harness.js';

const repo = join(import.meta.dirname, '../../..');
const tsx = join(repo, 'node_modules/.bin/tsx');
const main = join(repo, 'services/ratelimit/src/main.ts');

function run(env: Record<string, string>) {
  const child = spawn(tsx, [main], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, exited, output: () => output };
}

describe('the ratelimit process', () => {
  it('stops start-up naming every bad variable', async () => {
    const p = run({ GRPC_PORT: 'eighty', KVSTORE_POOL_SIZE: '0', LOG_FORMAT: 'json' });
    expect(await p.exited).toBe(1);
    const line = JSON.parse(p.output().trim().split('\n').pop() ?? '{}') as Record<string, unknown>;
    expect(line).toMatchObject({
      level: 'fatal',
      '@message': 'invalid settings',
      problems: [
        'GRPC_PORT="eighty": expected an integer ≥ 0 ≤ 65535',
        'KVSTORE_POOL_SIZE="0": expected an integer ≥ 1 ≤ 1024',
      ],
    });
  });

  it('serves and exits cleanly on SIGTERM', async () => {
    const p = await startService({});
    p.child.kill('SIGTERM');
    expect(await p.exited).toBe(0);
    expect(p.output()).toMatch(/msg="shutting down" signal=SIGTERM/);
    await rm(p.root, { recursive: true, force: true });
  });

  it('on SIGTERM fails /healthcheck at once, drains the decision in flight, then exits', async () => {
    const redis = await startRedis();
    const admin = new Redis(redis.port, '127.0.0.1');
    const p = await startService({ BACKEND_TYPE: 'redis', KVSTORE_URL: redis.address });
    const rls = createRlsClient(`127.0.0.1:${p.ports.grpc}`);
    try {
      // Redis holds every write, so the decision stays in flight until UNPAUSE
      await admin.call('CLIENT', 'PAUSE', '20000', 'WRITE');
      let settled = false;
      const decision = rls
        .shouldRateLimit({ domain: 'a', descriptors: [{ entries: [{ key: 'k', value: 'v' }] }] })
        .finally(() => (settled = true));
      await waitUntil(async () => (await admin.info('clients')).includes('blocked_clients:1'));

      p.child.kill('SIGTERM');
      await waitUntil(async () => (await healthStatus(p.ports.http)) === 500);
      expect(p.child.exitCode).toBeNull();
      expect(settled).toBe(false);

      await admin.call('CLIENT', 'UNPAUSE');
      expect(await decision).toMatchObject({ overallCode: 'OK', statuses: [{ limitRemaining: 4 }] });
      expect(await p.exited).toBe(0);
    } finally {
      rls.close();
      p.child.kill('SIGKILL');
      admin.disconnect();
      await redis.stop();
      await rm(p.root, { recursive: true, force: true });
    }
  });
});

const CONFIG = 'domain: a\ndescriptors:\n  - key: k\n    rate_limit: {unit: hour, requests_per_unit: 5}\n';

/** The service as a child process on free loopback ports, once `/healthcheck` answers 200. */
async function startService(env: Record<string, string>) {
  const { root } = await createRuntimeRoot({ 'a.yaml': CONFIG });
  const ports = { http: await freePort(), grpc: await freePort(), debug: await freePort() };
  const p = run({
    BACKEND_TYPE: 'memory',
    RUNTIME_ROOT: root,
    RUNTIME_WATCH_ROOT: 'false',
    HOST: '127.0.0.1',
    GRPC_HOST: '127.0.0.1',
    DEBUG_HOST: '127.0.0.1',
    PORT: String(ports.http),
    GRPC_PORT: String(ports.grpc),
    DEBUG_PORT: String(ports.debug),
    LOG_LEVEL: 'info',
    USE_STATSD: 'false',
    ...env,
  });
  await waitUntil(async () => (await healthStatus(ports.http)) === 200, 15_000);
  return { ...p, ports, root };
}

function healthStatus(port: number): Promise<number> {
  return fetch(`http://127.0.0.1:${port}/healthcheck`).then(
    (r) => r.status,
    () => 0,
  );
}
