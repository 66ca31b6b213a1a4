// `npm run bench`: decisions/s, latency, server CPU and memory of the rate-limit service over gRPC and HTTP,
// driven by h2load and wrk, each next to a ceiling (an empty server on the same protocol) and to the upstream
// Envoy rate-limit service, measured in the same run with the same load settings, on the same Redis: with
// pipelining off and on for both, ours in one worker process and in two beside every upstream row, memcached,
// a hot over-limit key with and without the local cache for both, the sliding window, token bucket and
// two-limit (`rate_limits`) rules; a scale table against descriptors per request and client connections; Redis
// round trips and commands per decision beside. `BENCH_ONLY` picks scenarios, `BENCH_REPEAT` repeats each.
// Prints figures; asserts nothing.
import { performance } from 'node:perf_hooks';
import { startMemcached, startRedis } from '@portcullis/testing';
import { readBenchSettings } from '../common/bench-settings.js';
import { requireLoadTools } from '../common/load-tools.js';
import { describeMachine, today } from '../common/machine.js';
import { formatErrors, type Measurement } from '../common/measure.js';
import { formatMarkdown, formatTable, type Row } from '../common/report.js';
import { runBench, type OnCleanup } from '../common/run-bench.js';
import { formatAligned } from '../common/table.js';
import type { ToolLoad } from '../common/tool-load.js';
import { measureWithTool } from '../common/tool-measure.js';
import { createGrpcLoad } from './load-grpc.js';
import { createHttpLoad } from './load-http.js';
import { perDecision, readRedisTraffic, type RedisTraffic } from './redis-traffic.js';
import { estimateRunMs } from './run-estimate.js';
import {
  CALLS_IN_FLIGHT,
  GRPC_SHAPE,
  HTTP_CONNECTIONS,
  LOCAL_CACHE_BYTES,
  PIPELINE_LIMIT,
  PIPELINE_WINDOW,
  SERVERS,
  listScenarios,
  selectScenarios,
  serversOf,
  type Scenario,
  type ScenarioLoad,
  type ServerName,
  type Table,
} from './scenarios.js';
import { startServer, type Backends, type Target } from './servers.js';
import { readRateLimitBenchSettings } from './settings.js';
import { FIRST_LOAD_WARMUP_MS, WARMUP_MS, withWarmups } from './warm-up.js';

const REPORT = { rateLabel: 'decisions/s', referenceLabel: 'ours/upstream' };

const out = (text: string): boolean => process.stdout.write(`${text}\n`);
const minutes = (ms: number): string => (ms / 60_000).toFixed(1);

interface RedisFigures {
  roundTrips: number;
  commands: number;
}

async function main(onCleanup: OnCleanup): Promise<void> {
  const startedMs = performance.now();
  requireLoadTools();
  const settings = readBenchSettings(process.env);
  const { repeat, only } = readRateLimitBenchSettings(process.env);
  const scenarios = selectScenarios(listScenarios(), only);
  if (scenarios.length === 0) {
    const names = listScenarios().map((s) => `\n  ${s.name}`);
    throw new Error(`BENCH_ONLY="${only ?? ''}" is in no scenario's name; the scenarios:${names.join('')}`);
  }
  const serverNames = serversOf(scenarios);
  const expectedMs = estimateRunMs(scenarios, serverNames, {
    durationMs: settings.durationMs,
    repeat,
  });
  out(
    `${scenarios.length} scenarios, ${repeat} measured run(s) each, on ${serverNames.length} servers: ` +
      `expected to take about ${minutes(expectedMs)} min`,
  );

  const backends = await startBackends(serverNames, settings.cpuProfDir, onCleanup);
  const targets = new Map<ServerName, Target>();
  for (const name of serverNames) targets.set(name, await startServer(name, backends.addresses, onCleanup));
  const watched = [...targets.values()];

  const measured = new Map<string, Measurement>();
  const redisFigures = new Map<string, RedisFigures>();
  const context: Omit<MeasureContext, 'warmupMs'> = {
    durationMs: settings.durationMs,
    repeat,
    watched,
    redisPort: backends.redisPort,
  };
  for (const { scenario: s, warmupMs } of withWarmups(scenarios)) {
    const target = targets.get(s.server);
    if (!target) throw new Error(`${s.name}: its server ${s.server} was not started`);
    const { measurement, redis } = await measureScenario(s, target, { ...context, warmupMs });
    measured.set(s.name, measurement);
    if (redis) redisFigures.set(s.name, redis);
  }

  const rowsOf = (table: Table): Row[] =>
    scenarios.filter((s) => s.tables.includes(table)).flatMap((s) => rowOf(s, measured));
  const tables = [
    { title: undefined, rows: rowsOf('main') },
    // a scale row alone is the first point of the scale table, in the main table already
    { title: SCALE_TITLE, rows: scenarios.some((s) => !s.tables.includes('main')) ? rowsOf('scale') : [] },
  ].filter((t) => t.rows.length > 0);
  const date = today();
  const machine = describeMachine();
  out('');
  out(`${date}, ${machine}`);
  out(describeRun(settings.durationMs, repeat));
  for (const t of tables) out(`${t.title ? `\n${t.title}` : ''}\n${formatTable(t.rows, REPORT)}`);
  out('');
  out('Redis traffic in the measured runs (round trips = Redis read events):');
  out(formatRedisFigures(redisFigures));
  out('');
  for (const line of formatErrors([...measured.values()])) out(line);
  for (const t of watched) if (t.describeLogs) out(t.describeLogs());
  for (const t of tables) {
    out(`${t.title ? `\n${t.title}\n` : ''}\n${formatMarkdown(t.rows, { ...REPORT, date, machine })}`);
  }
  out(`\nthe run took ${minutes(performance.now() - startedMs)} min (expected: ${minutes(expectedMs)})`);
  if (settings.cpuProfDir)
    out(`\nservice CPU profiles: ${settings.cpuProfDir} (written as the services exit)`);
}

const SCALE_TITLE =
  `Scale, gRPC + Redis, pipelining off: descriptors per request (each its own counter; a decision ` +
  `answers them all) and client connections (streams per connection adjusted to keep ${CALLS_IN_FLIGHT} ` +
  `calls in flight); the first three rows are those of the table above.`;

interface MeasureContext {
  warmupMs: number;
  durationMs: number;
  repeat: number;
  /** The servers that must stay up. */
  watched: readonly Target[];
  redisPort: number | undefined;
}

/** Measures `s` on `target`, and the Redis traffic per decision when the target counts on Redis. */
async function measureScenario(
  s: Scenario,
  target: Target,
  c: MeasureContext,
): Promise<{ measurement: Measurement; redis: RedisFigures | undefined }> {
  const redisPort = SERVERS[s.server].backend === 'Redis' ? c.redisPort : undefined;
  let before: RedisTraffic | undefined;
  let after: RedisTraffic | undefined;
  const measurement = await measureWithTool(s.name, await createLoad(s.load, target), {
    warmupMs: c.warmupMs,
    durationMs: c.durationMs,
    repeat: c.repeat,
    servers: target.pids,
    watched: c.watched,
    ...(redisPort === undefined
      ? {}
      : {
          aroundMeasured: {
            before: async () => void (before = await readRedisTraffic(redisPort)),
            after: async () => void (after = await readRedisTraffic(redisPort)),
          },
        }),
  });
  const redis = before && after ? perDecision(before, after, measurement.summary.count) : undefined;
  return { measurement, redis };
}

/** Redis and memcached, each started when a selected server counts on it. */
async function startBackends(
  servers: readonly ServerName[],
  cpuProfDir: string | undefined,
  onCleanup: OnCleanup,
): Promise<{ addresses: Backends; redisPort: number | undefined }> {
  const needs = (backend: 'Redis' | 'memcached'): boolean =>
    servers.some((name) => SERVERS[name].backend === backend);
  const redis = needs('Redis') ? await startRedis() : undefined;
  if (redis) onCleanup(() => redis.stop());
  const memcached = needs('memcached') ? await startMemcached() : undefined;
  if (memcached) onCleanup(() => memcached.stop());
  return {
    addresses: { redisAddress: redis?.address, memcachedAddress: memcached?.address, cpuProfDir },
    redisPort: redis?.port,
  };
}

function createLoad(load: ScenarioLoad, target: Target): Promise<ToolLoad> {
  switch (load.protocol) {
    case 'grpc':
      return createGrpcLoad(target.grpcPort, load.workload, load.shape);
    case 'http':
      return createHttpLoad(target.httpPort, HTTP_CONNECTIONS);
    default: {
      const unknown: never = load;
      throw new Error(`unknown load ${JSON.stringify(unknown)}`);
    }
  }
}

/** The row of a measured scenario, with the ceiling and upstream figures it is compared with when measured. */
function rowOf(s: Scenario, measured: ReadonlyMap<string, Measurement>): Row[] {
  const m = measured.get(s.name);
  if (!m) return [];
  const ceiling = s.ceiling === undefined ? undefined : measured.get(s.ceiling)?.summary;
  const reference = s.reference === undefined ? undefined : measured.get(s.reference)?.summary;
  return [{ ...m, ...(ceiling ? { ceiling } : {}), ...(reference ? { reference } : {}) }];
}

function describeRun(durationMs: number, repeat: number): string {
  return (
    `h2load (gRPC: ${GRPC_SHAPE.connections} connections × ${GRPC_SHAPE.streamsPerConnection} streams unless ` +
    `named, one thread) and wrk (/json: ${HTTP_CONNECTIONS} connections, one thread), one request body per ` +
    `scenario; ${WARMUP_MS} ms warm-up run (${WARMUP_MS + FIRST_LOAD_WARMUP_MS} ms on a server's first ` +
    `scenario of each protocol: Node code starts unoptimised), then ${repeat} measured run(s) of ` +
    `${durationMs} ms per scenario` +
    (repeat > 1
      ? ' (figures are the medians; spread ± is half the range of the runs over their median)'
      : '') +
    "; p50/p99 from h2load's per-request log and from wrk's latency histogram; errors count the sample check " +
    'and the warm-up too, and h2load sees HTTP statuses only (grpc-status is checked on a sample of 5 grpc-js ' +
    'calls before each scenario); CPU 100% = one core, over the middle 80% of each measured run; client CPU ' +
    "is the load generator's; server CPU and RSS (at the end of that window) add up the server's processes " +
    '(its workers too) and exclude Redis and memcached. Pipelining: ours ' +
    `KVSTORE_PIPELINE_WINDOW=${PIPELINE_WINDOW} KVSTORE_PIPELINE_LIMIT=${PIPELINE_LIMIT}, upstream ` +
    `REDIS_PIPELINE_WINDOW=${PIPELINE_WINDOW} REDIS_PIPELINE_LIMIT=${PIPELINE_LIMIT} (off: windows of 0); ` +
    `local cache: LOCAL_CACHE_SIZE_IN_BYTES=${LOCAL_CACHE_BYTES} on both.`
  );
}

/** Per decision; `n/a` for a run that counted no decision. */
function formatRedisFigures(figures: ReadonlyMap<string, RedisFigures>): string {
  const cell = (perDecision: number): string =>
    Number.isFinite(perDecision) ? perDecision.toFixed(3) : 'n/a';
  return formatAligned([
    ['scenario', 'Redis round trips/decision', 'Redis commands/decision'],
    ...[...figures].map(([scenario, f]) => [scenario, cell(f.roundTrips), cell(f.commands)]),
  ]);
}

await runBench(main);
