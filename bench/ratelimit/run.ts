// `npm run bench`: decisions/s and latency of the rate-limit service over gRPC and HTTP, each next to a
// ceiling (an empty server on the same protocol) measured in the same run, with Redis (implicit pipelining
// off and on), memcached, a hot over-limit key with and without the local cache, and the sliding window,
// token bucket and two-limit (`rate_limits`) rules beside the fixed window; Redis round trips and commands
// per decision beside. Prints figures; asserts nothing.
import { startMemcached, startRedis } from '@portcullis/testing';
import { readBenchSettings } from '../common/bench-settings.js';
import { describeMachine, today } from '../common/machine.js';
import { formatErrors, measure, type Load, type Measurement } from '../common/measure.js';
import { startRateLimitService, type RateLimitService } from '../common/ratelimit-service.js';
import { formatMarkdown, formatTable, type Row } from '../common/report.js';
import { runBench, type OnCleanup } from '../common/run-bench.js';
import { formatAligned } from '../common/table.js';
import { startCeiling } from './ceiling-process.js';
import { createGrpcLoad } from './load-grpc.js';
import { createHttpLoad } from './load-http.js';
import { perDecision, readRedisTraffic, type RedisTraffic } from './redis-traffic.js';
import {
  ALGORITHM_RULES_YAML,
  BENCH_RULES_YAML,
  HOT_KEY_WORKLOAD,
  SPREAD_WORKLOAD,
  algorithmWorkload,
} from './rls-proto.js';

const WARMUP_MS = 1000;
const CONCURRENCY = 64;
const GRPC_CHANNELS = 4;
const PIPELINE_WINDOW = '1ms';
const LOCAL_CACHE_BYTES = String(16 * 1024 * 1024);
const REPORT = { rateLabel: 'decisions/s' };

const out = (text: string): boolean => process.stdout.write(`${text}\n`);

async function main(onCleanup: OnCleanup): Promise<void> {
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
  const services = [plain, windowed, cached, objcache];
  const watched = [...services.map((s) => s.child), ceiling.child];

  const redisFigures = new Map<string, { roundTrips: number; commands: number }>();
  const run = async (
    scenario: string,
    load: Load,
    at: { server: RateLimitService | typeof ceiling; countsRedis?: boolean },
  ): Promise<Measurement> => {
    let before: RedisTraffic | undefined;
    let after: RedisTraffic | undefined;
    const m = await measure(scenario, load, {
      warmupMs: WARMUP_MS,
      durationMs: settings.durationMs,
      concurrency: CONCURRENCY,
      watched,
      servers: [at.server.child],
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
  const grpc = (port: number, workload = SPREAD_WORKLOAD) => createGrpcLoad(port, GRPC_CHANNELS, workload);

  const grpcCeiling = await run('gRPC, empty grpc-js (ceiling)', await grpc(ceiling.grpcPort), {
    server: ceiling,
  });
  const grpcRows = [
    await run('gRPC, ours + Redis', await grpc(plain.grpcPort), { server: plain, countsRedis: true }),
    await run(`gRPC, ours + Redis, pipeline window ${PIPELINE_WINDOW}`, await grpc(windowed.grpcPort), {
      server: windowed,
      countsRedis: true,
    }),
    await run(
      'gRPC, ours + Redis, sliding window',
      await grpc(plain.grpcPort, algorithmWorkload('sliding')),
      {
        server: plain,
        countsRedis: true,
      },
    ),
    await run('gRPC, ours + Redis, token bucket', await grpc(plain.grpcPort, algorithmWorkload('bucket')), {
      server: plain,
      countsRedis: true,
    }),
    await run(
      'gRPC, ours + Redis, rate_limits (2 limits)',
      await grpc(plain.grpcPort, algorithmWorkload('multi')),
      {
        server: plain,
        countsRedis: true,
      },
    ),
    await run('gRPC, ours + memcached', await grpc(objcache.grpcPort), { server: objcache }),
    await run('gRPC hot over-limit key, ours + Redis', await grpc(plain.grpcPort, HOT_KEY_WORKLOAD), {
      server: plain,
      countsRedis: true,
    }),
    await run(
      'gRPC hot over-limit key, ours + Redis + local cache',
      await grpc(cached.grpcPort, HOT_KEY_WORKLOAD),
      { server: cached, countsRedis: true },
    ),
  ];
  const httpCeiling = await run(
    'HTTP POST /json, empty fastify (ceiling)',
    createHttpLoad(ceiling.httpPort, CONCURRENCY),
    { server: ceiling },
  );
  const httpRows = [
    await run('HTTP POST /json, ours + Redis', createHttpLoad(plain.httpPort, CONCURRENCY), {
      server: plain,
      countsRedis: true,
    }),
    await run(
      `HTTP POST /json, ours + Redis, pipeline window ${PIPELINE_WINDOW}`,
      createHttpLoad(windowed.httpPort, CONCURRENCY),
      { server: windowed, countsRedis: true },
    ),
  ];
  const measurements = [grpcCeiling, ...grpcRows, httpCeiling, ...httpRows];
  const rows: Row[] = [
    grpcCeiling,
    ...grpcRows.map((r) => ({ ...r, ceiling: grpcCeiling.summary })),
    httpCeiling,
    ...httpRows.map((r) => ({ ...r, ceiling: httpCeiling.summary })),
  ];

  const date = today();
  const machine = describeMachine();
  out('');
  out(`${date}, ${machine}`);
  out(
    `${CONCURRENCY} calls in flight (gRPC over ${GRPC_CHANNELS} channels), ${WARMUP_MS} ms warm-up, ` +
      `${settings.durationMs} ms measured per scenario; errors count warm-up too; CPU 100% = one core, ` +
      'server CPU excludes Redis and memcached.',
  );
  out('');
  out(formatTable(rows, REPORT));
  out('');
  out('Redis traffic in the measured window (round trips = Redis read events):');
  out(formatRedisFigures(redisFigures));
  out('');
  for (const line of formatErrors(measurements)) out(line);
  for (const s of services) {
    const n = s.child.lineCount();
    out(`${s.child.name} log lines at warn or above: ${n}${n > 0 ? `\n${s.child.outputTail()}` : ''}`);
  }
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
