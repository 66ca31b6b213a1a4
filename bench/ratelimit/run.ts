// `npm run bench`: decisions/s and latency of the rate-limit service over gRPC and HTTP, driven by h2load and
// wrk, each next to a ceiling (an empty server on the same protocol) and to the upstream Envoy rate-limit
// service, measured in the same run with the same load settings, on the same Redis; with Redis (implicit
// pipelining off and on), memcached, a hot over-limit key with and without the local cache, and the sliding
// window, token bucket and two-limit (`rate_limits`) rules beside the fixed window; Redis round trips and
// commands per decision beside. Prints figures; asserts nothing.
import { startMemcached, startRedis, startUpstreamRateLimit } from '@portcullis/testing';
import { readBenchSettings } from '../common/bench-settings.js';
import { requireLoadTools } from '../common/load-tools.js';
import { describeMachine, today } from '../common/machine.js';
import { formatErrors, type Measurement } from '../common/measure.js';
import type { Child } from '../common/child-process.js';
import { startRateLimitService, type RateLimitService } from '../common/ratelimit-service.js';
import { formatMarkdown, formatTable, type Row } from '../common/report.js';
import { runBench, type OnCleanup } from '../common/run-bench.js';
import { formatAligned } from '../common/table.js';
import type { ToolLoad } from '../common/tool-load.js';
import { measureWithTool } from '../common/tool-measure.js';
import { startCeiling } from './ceiling-process.js';
import { createGrpcLoad } from './load-grpc.js';
import { createHttpLoad } from './load-http.js';
import { perDecision, readRedisTraffic, type RedisTraffic } from './redis-traffic.js';
import {
  ALGORITHM_RULES_YAML,
  BENCH_RULES_YAML,
  CLIENT_WORKLOAD,
  HOT_KEY_WORKLOAD,
  algorithmWorkload,
} from './rls-proto.js';

const WARMUP_MS = 1000;
const GRPC_CONNECTIONS = 4;
const GRPC_STREAMS_PER_CONNECTION = 16;
const HTTP_CONNECTIONS = 64;
const PIPELINE_WINDOW = '1ms';
const LOCAL_CACHE_BYTES = String(16 * 1024 * 1024);
const OUTPUT_TAIL_CHARS = 3000;
// upstream and ours build the same Redis keys (domain_key_value_window): apart, neither counts the other's calls
const UPSTREAM_KEY_PREFIX = 'upstream:';
const REPORT = { rateLabel: 'decisions/s', referenceLabel: 'ours/upstream' };

const out = (text: string): boolean => process.stdout.write(`${text}\n`);

/** A server the load is measured against: its processes' CPU is the server's, and it must stay up. */
interface Target {
  name: string;
  /** Process ids, each with the process group it leads. */
  pids: readonly number[];
  isExited(): boolean;
  outputTail(): string;
}

const childTarget = (c: Child): Target => ({
  name: c.name,
  pids: [c.pid],
  isExited: () => c.isExited(),
  outputTail: () => c.outputTail(),
});

async function main(onCleanup: OnCleanup): Promise<void> {
  requireLoadTools();
  const settings = readBenchSettings(process.env);
  const redis = await startRedis();
  onCleanup(() => redis.stop());
  const memcached = await startMemcached();
  onCleanup(() => memcached.stop());
  const start = (name: string, backendEnv: Record<string, string>): Promise<RateLimitService> => {
    const ruleFiles: Record<string, string> = { 'bench.yaml': BENCH_RULES_YAML };
    if (backendEnv.BACKEND_TYPE === 'redis') ruleFiles['algorithms.yaml'] = ALGORITHM_RULES_YAML;
    return startRateLimitService({ name, ruleFiles, backendEnv, cpuProfDir: settings.cpuProfDir }, onCleanup);
  };
  const onRedis = { BACKEND_TYPE: 'redis', KVSTORE_URL: redis.address };
  const plain = await start('ratelimit (Redis)', onRedis);
  const windowed = await start('ratelimit (Redis, pipeline window)', {
    ...onRedis,
    KVSTORE_PIPELINE_WINDOW: PIPELINE_WINDOW,
  });
  const cached = await start('ratelimit (Redis, local cache)', {
    ...onRedis,
    LOCAL_CACHE_SIZE_IN_BYTES: LOCAL_CACHE_BYTES,
  });
  const objcache = await start('ratelimit (memcached)', {
    BACKEND_TYPE: 'objcache',
    OBJCACHE_HOST_PORT: memcached.address,
  });
  const ceiling = await startCeiling(onCleanup);
  // bench.yaml only: upstream knows neither `algorithm`, `burst` nor `rate_limits`
  const upstream = await startUpstreamRateLimit({
    env: { REDIS_URL: redis.address, CACHE_KEY_PREFIX: UPSTREAM_KEY_PREFIX, LOG_LEVEL: 'warn' },
    files: { 'bench.yaml': BENCH_RULES_YAML },
  });
  onCleanup(() => upstream.stop());
  const upstreamTarget: Target = {
    name: 'ratelimit-upstream',
    pids: [upstream.pid],
    isExited: () => upstream.isExited(),
    outputTail: () => upstream.output().slice(-OUTPUT_TAIL_CHARS),
  };
  const services = [plain, windowed, cached, objcache];
  const watched = [...services.map((s) => childTarget(s.child)), childTarget(ceiling.child), upstreamTarget];

  const redisFigures = new Map<string, { roundTrips: number; commands: number }>();
  const run = async (
    scenario: string,
    load: ToolLoad,
    at: { server: Target; countsRedis?: boolean },
  ): Promise<Measurement> => {
    let before: RedisTraffic | undefined;
    let after: RedisTraffic | undefined;
    const m = await measureWithTool(scenario, load, {
      warmupMs: WARMUP_MS,
      durationMs: settings.durationMs,
      servers: at.server.pids,
      watched,
      ...(at.countsRedis
        ? {
            aroundMeasured: {
              before: async () => void (before = await readRedisTraffic(redis.port)),
              after: async () => void (after = await readRedisTraffic(redis.port)),
            },
          }
        : {}),
    });
    if (before && after) redisFigures.set(scenario, perDecision(before, after, m.summary.count));
    return m;
  };
  const grpc = (port: number, workload = CLIENT_WORKLOAD): Promise<ToolLoad> =>
    createGrpcLoad(port, workload, {
      connections: GRPC_CONNECTIONS,
      streamsPerConnection: GRPC_STREAMS_PER_CONNECTION,
    });
  const http = (port: number): Promise<ToolLoad> => createHttpLoad(port, HTTP_CONNECTIONS);
  const on = (s: RateLimitService): { server: Target; countsRedis: true } => ({
    server: childTarget(s.child),
    countsRedis: true,
  });

  const grpcCeiling = await run('gRPC, empty grpc-js (ceiling)', await grpc(ceiling.grpcPort), {
    server: childTarget(ceiling.child),
  });
  const grpcUpstream = await run('gRPC, upstream + Redis', await grpc(upstream.ports.grpc), {
    server: upstreamTarget,
    countsRedis: true,
  });
  const grpcVersusUpstream = [
    await run('gRPC, ours + Redis', await grpc(plain.grpcPort), on(plain)),
    await run(
      `gRPC, ours + Redis, pipeline window ${PIPELINE_WINDOW}`,
      await grpc(windowed.grpcPort),
      on(windowed),
    ),
  ];
  const grpcRows = [
    await run(
      'gRPC, ours + Redis, sliding window',
      await grpc(plain.grpcPort, algorithmWorkload('sliding')),
      on(plain),
    ),
    await run(
      'gRPC, ours + Redis, token bucket',
      await grpc(plain.grpcPort, algorithmWorkload('bucket')),
      on(plain),
    ),
    await run(
      'gRPC, ours + Redis, rate_limits (2 limits)',
      await grpc(plain.grpcPort, algorithmWorkload('multi')),
      on(plain),
    ),
    await run('gRPC, ours + memcached', await grpc(objcache.grpcPort), {
      server: childTarget(objcache.child),
    }),
    await run(
      'gRPC hot over-limit key, ours + Redis',
      await grpc(plain.grpcPort, HOT_KEY_WORKLOAD),
      on(plain),
    ),
    await run(
      'gRPC hot over-limit key, ours + Redis + local cache',
      await grpc(cached.grpcPort, HOT_KEY_WORKLOAD),
      on(cached),
    ),
  ];
  const httpCeiling = await run('HTTP POST /json, empty fastify (ceiling)', await http(ceiling.httpPort), {
    server: childTarget(ceiling.child),
  });
  const httpUpstream = await run('HTTP POST /json, upstream + Redis', await http(upstream.ports.http), {
    server: upstreamTarget,
    countsRedis: true,
  });
  const httpVersusUpstream = [
    await run('HTTP POST /json, ours + Redis', await http(plain.httpPort), on(plain)),
    await run(
      `HTTP POST /json, ours + Redis, pipeline window ${PIPELINE_WINDOW}`,
      await http(windowed.httpPort),
      on(windowed),
    ),
  ];
  const measurements = [
    grpcCeiling,
    grpcUpstream,
    ...grpcVersusUpstream,
    ...grpcRows,
    httpCeiling,
    httpUpstream,
    ...httpVersusUpstream,
  ];
  const rows: Row[] = [
    grpcCeiling,
    { ...grpcUpstream, ceiling: grpcCeiling.summary },
    ...grpcVersusUpstream.map((r) => ({
      ...r,
      ceiling: grpcCeiling.summary,
      reference: grpcUpstream.summary,
    })),
    ...grpcRows.map((r) => ({ ...r, ceiling: grpcCeiling.summary })),
    httpCeiling,
    { ...httpUpstream, ceiling: httpCeiling.summary },
    ...httpVersusUpstream.map((r) => ({
      ...r,
      ceiling: httpCeiling.summary,
      reference: httpUpstream.summary,
    })),
  ];

  const date = today();
  const machine = describeMachine();
  out('');
  out(`${date}, ${machine}`);
  out(
    `h2load (gRPC: ${GRPC_CONNECTIONS} connections × ${GRPC_STREAMS_PER_CONNECTION} streams, one thread) and ` +
      `wrk (/json: ${HTTP_CONNECTIONS} connections, one thread), one request body per scenario; ` +
      `${WARMUP_MS} ms warm-up run, ${settings.durationMs} ms measured run per scenario; ` +
      "p50/p99 from h2load's per-request log and from wrk's latency histogram; errors count the sample check " +
      'and the warm-up too, and h2load sees HTTP statuses only (grpc-status is checked on a sample of 5 grpc-js ' +
      'calls before each run); CPU 100% = one core, over the middle 80% of the measured run; client CPU is the ' +
      "load generator's; server CPU excludes Redis and memcached.",
  );
  out('');
  out(formatTable(rows, REPORT));
  out('');
  out('Redis traffic in the measured run (round trips = Redis read events):');
  out(formatRedisFigures(redisFigures));
  out('');
  for (const line of formatErrors(measurements)) out(line);
  for (const s of services) {
    const n = s.child.lineCount();
    out(`${s.child.name} log lines at warn or above: ${n}${n > 0 ? `\n${s.child.outputTail()}` : ''}`);
  }
  const upstreamLines = upstream.logLines();
  out(
    `ratelimit-upstream log lines at warn or above: ${upstreamLines.length}` +
      upstreamLines
        .slice(-5)
        .map((l) => `\n${JSON.stringify(l)}`)
        .join(''),
  );
  out('');
  out(formatMarkdown(rows, { ...REPORT, date, machine }));
  if (settings.cpuProfDir)
    out(`\nservice CPU profiles: ${settings.cpuProfDir} (written as the services exit)`);
}

function formatRedisFigures(figures: ReadonlyMap<string, { roundTrips: number; commands: number }>): string {
  return formatAligned([
    ['scenario', 'Redis round trips/decision', 'Redis commands/decision'],
    ...[...figures].map(([scenario, f]) => [scenario, f.roundTrips.toFixed(3), f.commands.toFixed(3)]),
  ]);
}

await runBench(main);
