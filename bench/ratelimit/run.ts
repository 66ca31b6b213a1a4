// `npm run bench`: decisions/s and latency of the rate-limit service over gRPC and HTTP, each next to a
// ceiling (an empty server on the same protocol) measured in the same run. Prints figures; asserts nothing.
import { resolve } from 'node:path';
import { startRedis } from '@portcullis/testing';
import { startCeiling } from './ceiling-process.js';
import type { Child } from '../common/child-process.js';
import { describeMachine, today } from '../common/machine.js';
import { runBench, type OnCleanup } from '../common/run-bench.js';
import { startCpuMeter } from './cpu-meter.js';
import { drive, type Call } from './drive.js';
import { createGrpcLoad } from './load-grpc.js';
import { createHttpLoad } from './load-http.js';
import { formatMarkdown, formatTable, type Row } from './report.js';
import { startService } from './service-process.js';
import { summarize } from './stats.js';

const WARMUP_MS = 1000;
const CONCURRENCY = 64;
const GRPC_CHANNELS = 4;

interface BenchSettings {
  durationMs: number;
  /** Where the service writes a CPU profile on exit; unset for none. */
  cpuProfDir: string | undefined;
}

function readSettings(env: NodeJS.ProcessEnv): BenchSettings {
  const raw = env.BENCH_DURATION_MS ?? '5000';
  const durationMs = Number(raw);
  if (!Number.isInteger(durationMs) || durationMs < 100) {
    throw new Error(`BENCH_DURATION_MS="${raw}": expected an integer ≥ 100`);
  }
  const dir = env.BENCH_CPU_PROF_DIR;
  return { durationMs, cpuProfDir: dir ? resolve(dir) : undefined };
}

const out = (text: string): boolean => process.stdout.write(`${text}\n`);

/** Warms up, then drives `load` for the measured window; fails if a server died meanwhile. */
async function measure(
  scenario: string,
  load: { call: Call; close(): void },
  o: { durationMs: number; server: Child; watched: readonly Child[] },
): Promise<Omit<Row, 'ceiling'> & { errorsByLabel: Map<string, number> }> {
  out(`running: ${scenario}`);
  try {
    const warmup = await drive({ call: load.call, concurrency: CONCURRENCY, durationMs: WARMUP_MS });
    const meter = startCpuMeter(o.server.pid);
    const result = await drive({ call: load.call, concurrency: CONCURRENCY, durationMs: o.durationMs });
    const cpu = meter.stop();
    const dead = o.watched.find((c) => c.isExited());
    if (dead) throw new Error(`${dead.name} exited during "${scenario}":\n${dead.outputTail()}`);
    const errorsByLabel = new Map(warmup.errors);
    for (const [label, n] of result.errors) errorsByLabel.set(label, (errorsByLabel.get(label) ?? 0) + n);
    const errors = [...errorsByLabel.values()].reduce((a, b) => a + b, 0);
    return {
      scenario,
      summary: summarize(result.latenciesMs, result.durationMs),
      errors,
      errorsByLabel,
      cpu,
    };
  } finally {
    load.close();
  }
}

async function main(onCleanup: OnCleanup): Promise<void> {
  const settings = readSettings(process.env);
  const redis = await startRedis();
  onCleanup(() => redis.stop());
  const service = await startService({ redisAddress: redis.address, cpuProfDir: settings.cpuProfDir });
  onCleanup(() => service.stop());
  const ceiling = await startCeiling();
  onCleanup(() => ceiling.stop());
  const watched = [service.child, ceiling.child];
  const ours = { durationMs: settings.durationMs, server: service.child, watched };
  const empty = { durationMs: settings.durationMs, server: ceiling.child, watched };

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
  out(formatTable(rows));
  out('');
  for (const r of [grpcCeiling, grpcOurs, httpCeiling, httpOurs]) {
    for (const [label, count] of r.errorsByLabel) out(`errors in "${r.scenario}": ${count} × ${label}`);
  }
  const logLines = service.child.lineCount();
  out(
    `service log lines at warn or above: ${logLines}${logLines > 0 ? `\n${service.child.outputTail()}` : ''}`,
  );
  out('');
  out(formatMarkdown(rows, { date, machine }));
  if (settings.cpuProfDir)
    out(`\nservice CPU profile: ${settings.cpuProfDir} (written as the service exits)`);
}

await runBench(main);
