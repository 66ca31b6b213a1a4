import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnTsx, type Child } from '../common/child-process.js';
import { distinctFreePorts } from '../common/ports.js';
import { waitForHttpOk } from '../common/wait-for-http.js';
import { BENCH_RULES_YAML } from './rls-proto.js';

const HEALTHY_TIMEOUT_MS = 30_000;

export interface ServiceProcess {
  child: Child;
  grpcPort: number;
  httpPort: number;
  stop(): Promise<void>;
}

export interface ServiceOptions {
  /** `host:port` of the Redis the service counts in. */
  redisAddress: string;
  /** When set, the service writes a V8 CPU profile (`--cpu-prof`) into this directory on exit. */
  cpuProfDir: string | undefined;
}

/** Writes the bench rules to a temporary runtime root and starts the service on it, as `npm run ratelimit` does. */
export async function startService(o: ServiceOptions): Promise<ServiceProcess> {
  const root = await mkdtemp(join(tmpdir(), 'portcullis-bench-'));
  await mkdir(join(root, 'config'));
  await writeFile(join(root, 'config', 'bench.yaml'), BENCH_RULES_YAML);
  const [httpPort, grpcPort, debugPort] = (await distinctFreePorts(3)) as [number, number, number];
  const env = {
    BACKEND_TYPE: 'redis',
    KVSTORE_URL: o.redisAddress,
    RUNTIME_ROOT: root,
    RUNTIME_APPDIRECTORY: 'config',
    RUNTIME_WATCH_ROOT: 'false',
    HOST: '127.0.0.1',
    PORT: String(httpPort),
    GRPC_HOST: '127.0.0.1',
    GRPC_PORT: String(grpcPort),
    DEBUG_HOST: '127.0.0.1',
    DEBUG_PORT: String(debugPort),
    LOG_LEVEL: 'warn',
  };
  const child = spawnTsx({
    name: 'ratelimit service',
    script: 'services/ratelimit/src/main.ts',
    env,
    nodeFlags: o.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${o.cpuProfDir}`] : [],
  });
  const stop = async (): Promise<void> => {
    await child.stop();
    await rm(root, { recursive: true, force: true });
  };
  try {
    await waitForHttpOk(`http://127.0.0.1:${httpPort}/healthcheck`, child, HEALTHY_TIMEOUT_MS);
  } catch (err: unknown) {
    await stop();
    throw err;
  }
  return { child, grpcPort, httpPort, stop };
}
