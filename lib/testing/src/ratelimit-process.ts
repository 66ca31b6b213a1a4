import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';
import { waitUntil } from './wait.js';

// The ratelimit service as a child process, from its entry point: how its own process tests run it, and how
// other services' tests ask a real one (services never import each other).

const repo = join(import.meta.dirname, '../../..');
const tsx = join(repo, 'node_modules/.bin/tsx');
const main = join(repo, 'services/ratelimit/src/main.ts');

/** The entry point with exactly `env` (and `PATH`), its output collected. */
export function runRateLimit(env: Record<string, string>) {
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

/** `/healthcheck` of a service on `port`: its status, or 0 when nothing answers. */
export function rateLimitHealth(port: number): Promise<number> {
  return fetch(`http://127.0.0.1:${port}/healthcheck`).then(
    (r) => r.status,
    () => 0,
  );
}

/**
 * The service on free loopback ports, the memory backend, `files` (name → YAML) as its configuration, once
 * `/healthcheck` answers 200 (within `startTimeoutMs`); `env` adds or overrides settings. `stop()` ends it and
 * removes the files.
 */
export async function startRateLimitProcess(
  files: Record<string, string>,
  env: Record<string, string> = {},
  startTimeoutMs = 15_000,
) {
  const root = await mkdtemp(join(tmpdir(), 'ratelimit-process-'));
  await mkdir(join(root, 'config'));
  for (const [name, text] of Object.entries(files)) await writeFile(join(root, 'config', name), text);
  const ports = { http: await freePort(), grpc: await freePort(), debug: await freePort() };
  const p = runRateLimit({
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
  const stop = async (): Promise<void> => {
    if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGTERM');
    await p.exited;
    await rm(root, { recursive: true, force: true });
  };
  try {
    await waitUntil(async () => {
      if (p.child.exitCode !== null) throw new Error(`the service exited: ${p.output()}`);
      return (await rateLimitHealth(ports.http)) === 200;
    }, startTimeoutMs);
  } catch (err: unknown) {
    await stop();
    throw err;
  }
  return { ...p, ports, root, stop };
}
