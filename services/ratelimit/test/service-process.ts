import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { freePort, waitUntil } from '@portcullis/testing';
import { createRuntimeRoot } from './harness.js';

const repo = join(import.meta.dirname, '../../..');
const tsx = join(repo, 'node_modules/.bin/tsx');
const main = join(repo, 'services/ratelimit/src/main.ts');

/** The service's entry point as a child process, its output collected. */
export function run(env: Record<string, string>) {
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

const CONFIG = 'domain: a\ndescriptors:\n  - key: k\n    rate_limit: {unit: hour, requests_per_unit: 5}\n';

/** The service as a child process on free loopback ports, once `/healthcheck` answers 200. */
export async function startService(env: Record<string, string>) {
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
  await waitUntil(async () => {
    if (p.child.exitCode !== null) throw new Error(`the service exited: ${p.output()}`);
    return (await healthStatus(ports.http)) === 200;
  }, 15_000);
  return { ...p, ports, root };
}

export function healthStatus(port: number): Promise<number> {
  return fetch(`http://127.0.0.1:${port}/healthcheck`).then(
    (r) => r.status,
    () => 0,
  );
}
