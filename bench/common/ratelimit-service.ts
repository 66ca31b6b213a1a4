import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnNode, type Child } from './child-process.js';
import { distinctFreePorts } from './ports.js';
import { serviceBundle } from './service-bundle.js';
import type { OnCleanup } from './run-bench.js';
import { waitForHttpOk } from './wait-for-http.js';

const HEALTHY_TIMEOUT_MS = 30_000;

export interface RateLimitService {
  child: Child;
  grpcPort: number;
  httpPort: number;
}

export interface RateLimitServiceOptions {
  /** Rule files by file name, written to the runtime config directory (one `domain` each). */
  ruleFiles: Readonly<Record<string, string>>;
  /**
   * The service's settings beyond its ports and runtime root: `BACKEND_TYPE` and the backend's own
   * (`KVSTORE_URL`, …), and any other (`RATELIMIT_WORKERS`, `LOCAL_CACHE_SIZE_IN_BYTES`, …).
   */
  env: Readonly<Record<string, string>>;
  /** How logs and errors name this service; `ratelimit service` by default. */
  name?: string;
  /** When set, the service writes a V8 CPU profile (`--cpu-prof`) into this directory on exit. */
  cpuProfDir?: string | undefined;
}

/**
 * Writes the rules to a temporary runtime root and starts the rate-limit service's bundle on it, as the
 * container image does, logging at warn; resolves once healthy (every rule file loaded). The service and
 * its runtime root are removed by `onCleanup`, registered as soon as they exist.
 */
export async function startRateLimitService(
  o: RateLimitServiceOptions,
  onCleanup: OnCleanup,
): Promise<RateLimitService> {
  const root = await mkdtemp(join(tmpdir(), 'portcullis-bench-'));
  onCleanup(() => rm(root, { recursive: true, force: true }));
  await mkdir(join(root, 'config'));
  for (const [file, yaml] of Object.entries(o.ruleFiles)) await writeFile(join(root, 'config', file), yaml);
  const [httpPort, grpcPort, debugPort] = (await distinctFreePorts(3)) as [number, number, number];
  const env = {
    ...o.env,
    RUNTIME_ROOT: root,
    RUNTIME_APPDIRECTORY: 'config',
    RUNTIME_WATCH_ROOT: 'false',
    FORCE_START_WITHOUT_INITIAL_CONFIG: 'false',
    HOST: '127.0.0.1',
    PORT: String(httpPort),
    GRPC_HOST: '127.0.0.1',
    GRPC_PORT: String(grpcPort),
    DEBUG_HOST: '127.0.0.1',
    DEBUG_PORT: String(debugPort),
    LOG_LEVEL: 'warn',
  };
  const bundle = await serviceBundle('ratelimit');
  const child = spawnNode({
    name: o.name ?? 'ratelimit service',
    script: bundle.script,
    env: { ...bundle.env, ...env },
    // as the image runs it
    nodeFlags: [
      '--enable-source-maps',
      ...(o.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${o.cpuProfDir}`] : []),
    ],
  });
  onCleanup(() => child.stop());
  await waitForHttpOk(`http://127.0.0.1:${httpPort}/healthcheck`, child, HEALTHY_TIMEOUT_MS);
  return { child, grpcPort, httpPort };
}
