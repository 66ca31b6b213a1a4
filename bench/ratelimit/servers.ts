import { startUpstreamRateLimit } from '@portcullis/testing';
import type { Child } from '../common/child-process.js';
import { startRateLimitService } from '../common/ratelimit-service.js';
import type { OnCleanup } from '../common/run-bench.js';
import { startCeiling } from './ceiling-process.js';
import { ALGORITHM_RULES_YAML, BENCH_RULES_YAML } from './rls-proto.js';
import { SERVERS, type ServerName, type ServerSpec } from './scenarios.js';

const OUTPUT_TAIL_CHARS = 3000;
const UPSTREAM_LOG_LINES_SHOWN = 5;
// upstream and ours build the same Redis keys (domain_key_value_window): apart, neither counts the other's calls
const UPSTREAM_KEY_PREFIX = 'upstream:';

/** A server the load is measured against: its processes' CPU and memory are the server's; it must stay up. */
export interface Target {
  name: string;
  /** Process ids, each with the process group it leads (where our service's workers are). */
  pids: readonly number[];
  grpcPort: number;
  httpPort: number;
  isExited(): boolean;
  outputTail(): string;
  /** How many lines it logged at warn or above, with the last ones; undefined for the ceiling. */
  describeLogs: (() => string) | undefined;
}

/** What the servers count on, started by the caller as the selected servers need them. */
export interface Backends {
  redisAddress: string | undefined;
  memcachedAddress: string | undefined;
  /** When set, our services write a CPU profile there on exit. */
  cpuProfDir: string | undefined;
}

/** Starts the server `name` of `SERVERS`; it is stopped by `onCleanup`. */
export async function startServer(name: ServerName, b: Backends, onCleanup: OnCleanup): Promise<Target> {
  const spec: ServerSpec = SERVERS[name];
  switch (spec.implementation) {
    case 'ceiling': {
      const ceiling = await startCeiling(onCleanup);
      return { ...childTarget(ceiling.child, ceiling), describeLogs: undefined };
    }
    case 'ours':
      return startOurs(name, spec, b, onCleanup);
    case 'upstream':
      return startUpstream(name, spec, b, onCleanup);
    default: {
      const unknown: never = spec.implementation;
      throw new Error(`unknown implementation ${String(unknown)}`);
    }
  }
}

function childTarget(c: Child, ports: { grpcPort: number; httpPort: number }): Omit<Target, 'describeLogs'> {
  return {
    name: c.name,
    pids: [c.pid],
    grpcPort: ports.grpcPort,
    httpPort: ports.httpPort,
    isExited: () => c.isExited(),
    outputTail: () => c.outputTail(),
  };
}

function required(address: string | undefined, what: string, server: ServerName): string {
  if (address === undefined) throw new Error(`${server}: needs ${what}, which was not started`);
  return address;
}

async function startOurs(
  name: ServerName,
  spec: ServerSpec,
  b: Backends,
  onCleanup: OnCleanup,
): Promise<Target> {
  const onRedis = spec.backend === 'Redis';
  const backendEnv: Record<string, string> = onRedis
    ? { BACKEND_TYPE: 'redis', KVSTORE_URL: required(b.redisAddress, 'Redis', name) }
    : { BACKEND_TYPE: 'objcache', OBJCACHE_HOST_PORT: required(b.memcachedAddress, 'memcached', name) };
  // memcached refuses token buckets: its instance does not load the algorithm rules
  const ruleFiles = {
    'bench.yaml': BENCH_RULES_YAML,
    ...(onRedis ? { 'algorithms.yaml': ALGORITHM_RULES_YAML } : {}),
  };
  const service = await startRateLimitService(
    { name: `ratelimit (${name})`, ruleFiles, env: { ...backendEnv, ...spec.env }, cpuProfDir: b.cpuProfDir },
    onCleanup,
  );
  const c = service.child;
  return {
    ...childTarget(c, service),
    describeLogs: () => {
      const n = c.lineCount();
      return `${c.name} log lines at warn or above: ${n}${n > 0 ? `\n${c.outputTail()}` : ''}`;
    },
  };
}

async function startUpstream(
  name: ServerName,
  spec: ServerSpec,
  b: Backends,
  onCleanup: OnCleanup,
): Promise<Target> {
  // bench.yaml only: upstream knows neither `algorithm`, `burst` nor `rate_limits`
  const upstream = await startUpstreamRateLimit({
    env: {
      REDIS_URL: required(b.redisAddress, 'Redis', name),
      CACHE_KEY_PREFIX: UPSTREAM_KEY_PREFIX,
      LOG_LEVEL: 'warn',
      ...spec.env,
    },
    files: { 'bench.yaml': BENCH_RULES_YAML },
  });
  onCleanup(() => upstream.stop());
  const label = `ratelimit-upstream (${name})`;
  return {
    name: label,
    pids: [upstream.pid],
    grpcPort: upstream.ports.grpc,
    httpPort: upstream.ports.http,
    isExited: () => upstream.isExited(),
    outputTail: () => upstream.output().slice(-OUTPUT_TAIL_CHARS),
    describeLogs: () => {
      const lines = upstream.logLines();
      return (
        `${label} log lines at warn or above: ${lines.length}` +
        lines
          .slice(-UPSTREAM_LOG_LINES_SHOWN)
          .map((l) => `\n${JSON.stringify(l)}`)
          .join('')
      );
    },
  };
}
