// `npm run --workspace @portcullis/bench gateway`: requests/s and latency through the gateway (a handler
// route, the same with JWT auth, a rate-limited handler route and an upstream route), each next to its
// ceiling measured in the same run: a bare fastify app answering the same body, or the backend called
// directly. Prints figures, and where the gateway's time goes when the handler ratio misses the goal;
// asserts nothing.
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRedis } from '@portcullis/testing';
import { readBenchSettings } from '../common/bench-settings.js';
import { describeMachine, today } from '../common/machine.js';
import { formatErrors, type Measurement } from '../common/measure.js';
import { spawnPortsChild } from '../common/ports-child.js';
import { startRateLimitService } from '../common/ratelimit-service.js';
import { formatMarkdown, formatTable, ratioOf, type Row } from '../common/report.js';
import { runBench, type OnCleanup } from '../common/run-bench.js';
import { measureWithTool } from '../common/tool-measure.js';
import { requireLoadTools } from '../common/load-tools.js';
import { GATEWAY_RULES_YAML } from './api-route.js';
import { profileGateway } from './profile.js';
import { createUser, logIn, startGateway } from './processes.js';
import {
  buildScenarios,
  createTargetLoad,
  SCENARIO_KEYS,
  type ScenarioKey,
  type Target,
} from './scenarios.js';

const WARMUP_MS = 1000;
const CONCURRENCY = 64;
/** The issue's goal for the handler route: at least this share of bare fastify's requests/s. */
const GOAL_RATIO = 0.7;
const REPORT = { rateLabel: 'requests/s' };
const PROFILE_MODES = ['auto', 'always', 'never'] as const;

interface ProfileSettings {
  /** `BENCH_PROFILE`: when the handler ratio misses the goal (`auto`), always, or never. */
  mode: (typeof PROFILE_MODES)[number];
  /** `BENCH_PROFILE_SCENARIO`: whose gateway and load are profiled; `handler` unless given. */
  scenario: ScenarioKey;
}

function readProfileSettings(env: NodeJS.ProcessEnv): ProfileSettings {
  const rawMode = env.BENCH_PROFILE ?? 'auto';
  const mode = PROFILE_MODES.find((m) => m === rawMode);
  if (!mode) throw new Error(`BENCH_PROFILE="${rawMode}": expected one of ${PROFILE_MODES.join(', ')}`);
  const rawScenario = env.BENCH_PROFILE_SCENARIO ?? 'handler';
  const scenario = SCENARIO_KEYS.find((k) => k === rawScenario);
  if (!scenario) {
    throw new Error(`BENCH_PROFILE_SCENARIO="${rawScenario}": expected one of ${SCENARIO_KEYS.join(', ')}`);
  }
  return { mode, scenario };
}

const out = (text: string): boolean => process.stdout.write(`${text}\n`);

async function main(onCleanup: OnCleanup): Promise<void> {
  requireLoadTools();
  const settings = readBenchSettings(process.env);
  const profiling = readProfileSettings(process.env);
  const tmp = await mkdtemp(join(tmpdir(), 'portcullis-bench-gateway-'));
  onCleanup(() => rm(tmp, { recursive: true, force: true }));

  const redis = await startRedis();
  onCleanup(() => redis.stop());
  const redisUrl = `redis://${redis.address}`;
  const user = { username: 'bench', password: randomBytes(18).toString('base64url') };
  const userId = await createUser({ redisUrl, ...user }, onCleanup);
  const testBody = JSON.stringify({
    message: 'test successful',
    user: { id: userId, username: user.username },
  });

  const backend = await spawnPortsChild(
    { name: 'backend', script: 'bench/gateway/backend-server.ts' },
    ['port'],
    onCleanup,
  );
  const ceiling = await spawnPortsChild(
    { name: 'bare fastify', script: 'bench/gateway/ceiling-server.ts', env: { BENCH_TEST_BODY: testBody } },
    ['port'],
    onCleanup,
  );
  const xds = await spawnPortsChild(
    {
      name: 'xds server',
      script: 'bench/gateway/xds-server.ts',
      env: { BENCH_BACKEND_PORT: String(backend.ports.port) },
    },
    ['port'],
    onCleanup,
  );
  const rls = await startRateLimitService(
    { ruleFiles: { 'gateway.yaml': GATEWAY_RULES_YAML }, env: { BACKEND_TYPE: 'memory' } },
    onCleanup,
  );
  const openEnv = {
    GATEWAY_XDS_SERVER_URL: `127.0.0.1:${xds.ports.port}`,
    GATEWAY_BACKEND_HOST: '127.0.0.1',
    GATEWAY_RATELIMIT_URL: `127.0.0.1:${rls.grpcPort}`,
    // an unanswered decision is then an error the bench counts, not a request let through unasked
    GATEWAY_RATELIMIT_FAILURE_MODE: 'deny',
  };
  const jwtEnv = { ...openEnv, GATEWAY_AUTH: 'jwt', REDIS_URL: redisUrl };
  const gatewayAt = (name: string, env: Record<string, string>, cpuProfDir?: string) =>
    startGateway(
      { name, env, stateDir: join(tmp, name.replace(/\W+/g, '-')), ...(cpuProfDir ? { cpuProfDir } : {}) },
      onCleanup,
    );
  const open = await gatewayAt('gateway auth none', openEnv);
  const jwt = await gatewayAt('gateway auth jwt', jwtEnv);
  const token = await logIn(jwt.port, user);

  const scenarios = buildScenarios({
    ceiling: { child: ceiling.child, port: ceiling.ports.port },
    backend: { child: backend.child, port: backend.ports.port },
    ratelimit: rls.child,
    open: { ...open, env: openEnv },
    jwt: { ...jwt, env: jwtEnv, token },
    testBody,
  });
  const watched = [backend.child, ceiling.child, xds.child, rls.child, open.child, jwt.child];
  const measured: Measurement[] = [];
  const rows: Row[] = [];
  const ratios = new Map<ScenarioKey, number>();
  for (const s of scenarios) {
    const [c, ours] = [s.ceiling, s.ours];
    const o = { warmupMs: WARMUP_MS, durationMs: settings.durationMs, watched };
    const pids = (t: Target) => t.servers.map((child) => child.pid);
    const top = await measureWithTool(c.label, await createTargetLoad(c, { connections: CONCURRENCY }), {
      ...o,
      servers: pids(c),
    });
    const got = await measureWithTool(
      ours.label,
      await createTargetLoad(ours, { connections: CONCURRENCY }),
      {
        ...o,
        servers: pids(ours),
      },
    );
    const row: Row = { ...got, ceiling: top.summary };
    measured.push(top, got);
    rows.push(top, row);
    ratios.set(s.key, ratioOf(row) ?? Number.NaN);
  }

  const handlerRatio = ratios.get('handler') ?? Number.NaN;
  const date = today();
  const machine = describeMachine();
  out('');
  out(`${date}, ${machine}`);
  out(
    `wrk, ${CONCURRENCY} keep-alive connections with one request in flight on each, ${WARMUP_MS} ms warm-up, ` +
      `${settings.durationMs} ms measured per scenario; errors (non-2xx or another body) count warm-up ` +
      'too; CPU 100% = one core; server CPU is the gateway plus the ratelimit service or the backend; ' +
      'other CPU = machine - client - server (Redis, anything else running).',
  );
  out('');
  out(formatTable(rows, REPORT));
  out('');
  for (const line of formatErrors(measured)) out(line);
  for (const child of [open.child, jwt.child, rls.child]) {
    const lines = child.lineCount();
    out(`${child.name} log lines at warn or above: ${lines}${lines > 0 ? `\n${child.outputTail()}` : ''}`);
  }
  out(
    `handler route: ${handlerRatio.toFixed(2)} of bare fastify (goal ≥ ${GOAL_RATIO}): ` +
      (handlerRatio >= GOAL_RATIO ? 'meets it' : 'below it'),
  );
  out('');
  out(formatMarkdown(rows, { ...REPORT, date, machine }));

  const belowGoal = !(handlerRatio >= GOAL_RATIO);
  if (profiling.mode === 'always' || (profiling.mode === 'auto' && belowGoal)) {
    const s = scenarios.find((x) => x.key === profiling.scenario);
    if (!s) throw new Error(`no scenario ${profiling.scenario}`);
    out('');
    out(`profiling a fresh gateway under the "${s.ours.label}" load…`);
    const parentDir = settings.cpuProfDir ?? tmp;
    await mkdir(parentDir, { recursive: true });
    const lines = await profileGateway({
      start: (dir) => gatewayAt('gateway profiled', s.ours.gatewayEnv, dir),
      load: (port) => createTargetLoad(s.ours, { port, connections: CONCURRENCY }),
      parentDir,
      warmupMs: WARMUP_MS,
      durationMs: settings.durationMs,
    });
    for (const line of lines) out(line);
    if (!settings.cpuProfDir) out('(the profile is deleted on exit: set BENCH_CPU_PROF_DIR to keep it)');
  }
}

await runBench(main);
