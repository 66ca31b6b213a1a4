import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { spawnLogged, type LoggedProcess } from './logged-process.js';
import { createRuntimeRoot, loopbackServers } from './service-env.js';
import { waitUntil } from './wait.js';

// The ratelimit service as a child process, from its entry point: how its own process tests run it, and how
// other services' tests ask a real one (services never import each other).

const repo = join(import.meta.dirname, '../../..');
const tsx = join(repo, 'node_modules/.bin/tsx');
const main = join(repo, 'services/ratelimit/src/main.ts');

/** The entry point with exactly `env` (and `PATH`), its output collected. */
export function runRateLimit(env: Record<string, string>): LoggedProcess {
  return spawnLogged(tsx, [main], env);
}

/** `/healthcheck` of a service on `port`: its status, or 0 when nothing answers. */
export function rateLimitHealth(port: number): Promise<number> {
  return fetch(`http://127.0.0.1:${port}/healthcheck`).then(
    (r) => r.status,
    () => 0,
  );
}

/** Starts after a port taken in the meantime: a free port is free only until another process binds it. */
const PORT_ATTEMPTS = 3;

/**
 * The service on free loopback ports, the memory backend, one process, `files` (name → YAML) as its configuration, once
 * `/healthcheck` answers 200 (within `startTimeoutMs`); `env` adds or overrides settings. `stop()` ends it and
 * removes the files. A start that fails because another process took one of its ports first is tried again
 * on other ports.
 */
export async function startRateLimitProcess(
  files: Record<string, string>,
  env: Record<string, string> = {},
  startTimeoutMs = 15_000,
) {
  const root = await createRuntimeRoot('ratelimit-process-', files);
  for (let attempt = 1; ; attempt++) {
    const servers = await loopbackServers();
    const p = runRateLimit({
      BACKEND_TYPE: 'memory',
      RUNTIME_ROOT: root,
      RUNTIME_WATCH_ROOT: 'false',
      ...servers.env,
      LOG_LEVEL: 'info',
      USE_STATSD: 'false',
      // one process whatever the machine's CPUs, unless the test asks for worker processes
      RATELIMIT_WORKERS: '1',
      ...env,
    });
    const stop = async (): Promise<void> => {
      await p.stop();
      await rm(root, { recursive: true, force: true });
    };
    try {
      await waitUntil(async () => {
        if (p.child.exitCode !== null) throw new Error(`the service exited: ${p.output()}`);
        return (await rateLimitHealth(servers.ports.http)) === 200;
      }, startTimeoutMs);
      return { ...p, ports: servers.ports, root, stop };
    } catch (err: unknown) {
      await p.stop();
      if (attempt < PORT_ATTEMPTS && / is in use; /.test(p.output())) continue;
      await rm(root, { recursive: true, force: true });
      throw err;
    }
  }
}
