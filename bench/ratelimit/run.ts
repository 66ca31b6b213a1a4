// `npm run bench`: decisions/s and latency of the rate-limit service over gRPC and HTTP, each next to a
// ceiling (an empty server on the same protocol) measured in the same run. Prints figures; asserts nothing.
import { startRedis } from '@portcullis/testing';
import { readBenchSettings } from '../common/bench-settings.js';
import { describeMachine, today } from '../common/machine.js';
import { formatErrors, measure } from '../common/measure.js';
import { startRateLimitService } from '../common/ratelimit-service.js';
import { formatMarkdown, formatTable, type Row } from '../common/report.js';
import { runBench, type OnCleanup } from '../common/run-bench.js';
import { startCeiling } from './ceiling-process.js';
import { createGrpcLoad } from './load-grpc.js';
import { createHttpLoad } from './load-http.js';
import { BENCH_RULES_YAML } from './rls-proto.js';

const WARMUP_MS = 1000;
const CONCURRENCY = 64;
const GRPC_CHANNELS = 4;
const REPORT = { rateLabel: 'decisions/s' };

const out = (text: string): boolean => process.stdout.write(`${text}\n`);

async function main(onCleanup: OnCleanup): Promise<void> {
  const settings = readBenchSettings(process.env);
  const redis = await startRedis();
  onCleanup(() => redis.stop());
  const service = await startRateLimitService(
    {
      ruleFiles: { 'bench.yaml': BENCH_RULES_YAML },
      backendEnv: { BACKEND_TYPE: 'redis', KVSTORE_URL: redis.address },
      cpuProfDir: settings.cpuProfDir,
    },
    onCleanup,
  );
  const ceiling = await startCeiling(onCleanup);
  const watched = [service.child, ceiling.child];
  const common = { warmupMs: WARMUP_MS, durationMs: settings.durationMs, concurrency: CONCURRENCY, watched };
  const ours = { ...common, servers: [service.child] };
  const empty = { ...common, servers: [ceiling.child] };

  const grpcCeiling = await measure(
    'gRPC, empty grpc-js (ceiling)',
    await createGrpcLoad(ceiling.grpcPort, GRPC_CHANNELS),
    empty,
  );
  const grpcOurs = await measure(
    'gRPC ShouldRateLimit, ours + Redis',
    await createGrpcLoad(service.grpcPort, GRPC_CHANNELS),
    ours,
  );
  const httpCeiling = await measure(
    'HTTP POST /json, empty fastify (ceiling)',
    createHttpLoad(ceiling.httpPort, CONCURRENCY),
    empty,
  );
  const httpOurs = await measure(
    'HTTP POST /json, ours + Redis',
    createHttpLoad(service.httpPort, CONCURRENCY),
    ours,
  );
  const rows: Row[] = [
    grpcCeiling,
    { ...grpcOurs, ceiling: grpcCeiling.summary },
    httpCeiling,
    { ...httpOurs, ceiling: httpCeiling.summary },
  ];

  const date = today();
  const machine = describeMachine();
  out('');
  out(`${date}, ${machine}`);
  out(
    `${CONCURRENCY} calls in flight (gRPC over ${GRPC_CHANNELS} channels), ${WARMUP_MS} ms warm-up, ` +
      `${settings.durationMs} ms measured per scenario; one Redis INCRBY+EXPIRE per decision of ours; ` +
      'errors count warm-up too; CPU 100% = one core, server CPU excludes Redis.',
  );
  out('');
  out(formatTable(rows, REPORT));
  out('');
  for (const line of formatErrors([grpcCeiling, grpcOurs, httpCeiling, httpOurs])) out(line);
  const logLines = service.child.lineCount();
  out(
    `service log lines at warn or above: ${logLines}${logLines > 0 ? `\n${service.child.outputTail()}` : ''}`,
  );
  out('');
  out(formatMarkdown(rows, { ...REPORT, date, machine }));
  if (settings.cpuProfDir)
    out(`\nservice CPU profile: ${settings.cpuProfDir} (written as the service exits)`);
}

await runBench(main);
