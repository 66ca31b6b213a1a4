// `npm run --workspace @portcullis/bench gateway`: requests/s and latency through the gateway (a handler
// route, the same with JWT auth, a rate-limited handler route and an upstream route), each next to its
// ceiling measured in the same run: a bare fastify app answering the same body, or the backend called
// directly; the upstream route also next to nginx proxying to the same backend. Each with one process and
// with BENCH_GATEWAY_PROCESSES (the CPUs by default): gateway workers, fastify and nginx processes alike.
// Prints figures, the issue-36 goals met or not, and where the gateway's time goes when the handler ratio
// misses its goal; asserts nothing.
import { randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRedis } from '@portcullis/testing';
import { usableCpus } from '@portcullis/kit';
import { readBenchSettings, readCount } from '../common/bench-settings.js';
import { describeMachine, today } from '../common/machine.js';
import { formatErrors, type Measurement } from '../common/measure.js';
import type { Child } from '../common/child-process.js';
import { distinctFreePorts } from '../common/ports.js';
import { spawnPortsChild } from '../common/ports-child.js';
import { startRateLimitService } from '../common/ratelimit-service.js';
import { formatMarkdown, formatTable, type Row } from '../common/report.js';
import { runBench, type OnCleanup } from '../common/run-bench.js';
import { measureWithTool } from '../common/tool-measure.js';
import { requireLoadTools } from '../common/load-tools.js';
import { GATEWAY_RULES_YAML } from './api-route.js';
import { profileGateway } from './profile.js';
import { formatGoals, type ScenarioResult } from './goals.js';
import { NGINX, startNginx } from './nginx.js';
import { createUser, logIn, startGateway } from './processes.js';
import {
  buildScenarios,
  createTargetLoad,
  SCENARIO_KEYS,
  type Scenario,
  type ScenarioKey,
  type Target,
} from './scenarios.js';

/**
 * Each row's warm-up, ceilings and peers alike: each gateway route runs code the others do not (undici's
 * client, JWT checks, the rate-limit client), and a path that is still cold after 1 s cost 3 to 5 times the
 * CPU per request of a warm one (issue 36, on a loaded machine).
 */
const WARMUP_MS = 5000;
const CONCURRENCY = 64;
const REPORT = { rateLabel: 'requests/s', referenceLabel: 'ours/nginx' };
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
  requireLoadTools([NGINX]);
  const settings = readBenchSettings(process.env);
  const profiling = readProfileSettings(process.env);
  const most = readCount(process.env, 'BENCH_GATEWAY_PROCESSES', await usableCpus());
  const processCounts = [...new Set([1, most])];
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
  // Redis in both: with more than one worker the gateway keeps accounts and applications there
  const openEnv = {
    GATEWAY_XDS_SERVER_URL: `127.0.0.1:${xds.ports.port}`,
    GATEWAY_BACKEND_HOST: '127.0.0.1',
    GATEWAY_RATELIMIT_URL: `127.0.0.1:${rls.grpcPort}`,
    // an unanswered decision is then an error the bench counts, not a request let through unasked
    GATEWAY_RATELIMIT_FAILURE_MODE: 'deny',
    REDIS_URL: redisUrl,
  };
  const gatewayAt = (name: string, env: Record<string, string>, cpuProfDir?: string) =>
    startGateway(
      { name, env, stateDir: join(tmp, name.replace(/\W+/g, '-')), ...(cpuProfDir ? { cpuProfDir } : {}) },
      onCleanup,
    );

  const measured: Measurement[] = [];
  const rows: Row[] = [];
  const results: ScenarioResult[] = [];
  const scenarios: Scenario[] = [];
  const gatewayChildren: Child[] = [];
  for (const processes of processCounts) {
    const n = `${processes}p`;
    const workers = { GATEWAY_WORKERS: String(processes) };
    const ceiling = await spawnPortsChild(
      {
        name: `${n} bare fastify`,
        script: 'bench/gateway/ceiling-server.ts',
        env: {
          BENCH_TEST_BODY: testBody,
          BENCH_PROCESSES: String(processes),
          BENCH_PORT: String((await distinctFreePorts(1))[0]),
        },
      },
      ['port'],
      onCleanup,
    );
    const nginx = await startNginx(
      {
        name: `${n} nginx`,
        dir: join(tmp, `nginx-${n}`),
        backendPort: backend.ports.port,
        processes,
        probePath: '/up',
      },
      onCleanup,
    );
    const open = await gatewayAt(`${n} gateway auth none`, { ...openEnv, ...workers });
    const jwtEnv = { ...openEnv, ...workers, GATEWAY_AUTH: 'jwt' };
    const jwt = await gatewayAt(`${n} gateway auth jwt`, jwtEnv);
    const token = await logIn(jwt.port, user);
    const set = buildScenarios({
      processes,
      ceiling: { child: ceiling.child, port: ceiling.ports.port },
      backend: { child: backend.child, port: backend.ports.port },
      nginx,
      ratelimit: rls.child,
      open: { ...open, env: { ...openEnv, ...workers } },
      jwt: { ...jwt, env: jwtEnv, token },
      testBody,
    });
    const watched = [backend.child, ceiling.child, nginx.child, xds.child, rls.child, open.child, jwt.child];
    for (const s of set) {
      const o = { warmupMs: WARMUP_MS, durationMs: settings.durationMs, watched };
      const measure = async (t: Target) =>
        measureWithTool(t.label, await createTargetLoad(t, { connections: CONCURRENCY }), {
          ...o,
          servers: t.servers.map((child) => child.pid),
        });
      const top = await measure(s.ceiling);
      const reference = s.reference ? await measure(s.reference) : undefined;
      const got = await measure(s.ours);
      measured.push(top, ...(reference ? [reference] : []), got);
      rows.push(top);
      if (reference) rows.push({ ...reference, ceiling: top.summary });
      rows.push({ ...got, ceiling: top.summary, ...(reference ? { reference: reference.summary } : {}) });
      results.push({
        key: s.key,
        processes,
        ceiling: top.summary,
        reference: reference?.summary,
        ours: got.summary,
      });
    }
    scenarios.push(...set);
    gatewayChildren.push(open.child, jwt.child);
    // the next process count has the machine to itself
    for (const child of [open.child, jwt.child, nginx.child, ceiling.child]) await child.stop();
  }

  const date = today();
  const machine = describeMachine();
  out('');
  out(`${date}, ${machine}`);
  out(
    `wrk, ${CONCURRENCY} keep-alive connections with one request in flight on each, ${WARMUP_MS} ms warm-up, ` +
      `${settings.durationMs} ms measured per scenario; errors (non-2xx or another body) count warm-up ` +
      'too; CPU 100% = one core; server CPU is the gateway plus the ratelimit service or the backend ' +
      '(nginx plus the backend on its row); other CPU = machine - client - server (Redis, anything else ' +
      `running); Np = N processes: gateway workers, bare fastify's and nginx's alike (${processCounts.join(' and ')}).`,
  );
  out('');
  out(formatTable(rows, REPORT));
  out('');
  for (const line of formatErrors(measured)) out(line);
  for (const child of [...gatewayChildren, rls.child]) {
    const lines = child.lineCount();
    out(`${child.name} log lines at warn or above: ${lines}${lines > 0 ? `\n${child.outputTail()}` : ''}`);
  }
  const goals = formatGoals(results);
  for (const line of goals.lines) out(line);
  out('');
  out(formatMarkdown(rows, { ...REPORT, date, machine }));

  if (profiling.mode === 'always' || (profiling.mode === 'auto' && goals.handlerMissed)) {
    // the one-process gateway: a profile of one process is the per-request cost, workers aside
    const s = scenarios.find((x) => x.key === profiling.scenario && x.processes === 1);
    if (!s) throw new Error(`no scenario ${profiling.scenario}`);
    out('');
    out(`profiling a fresh gateway under the "${s.ours.label}" load…`);
    const parentDir = settings.cpuProfDir ?? tmp;
    await mkdir(parentDir, { recursive: true });
    const lines = await profileGateway({
      start: (dir) => gatewayAt('gateway profiled', s.ours.gatewayEnv, dir),
      load: (port) => createTargetLoad(s.ours, { port, connections: CONCURRENCY }),
      parentDir,
      title: `gateway profiled: ${s.ours.label}, ${settings.durationMs} ms measured`,
      warmupMs: WARMUP_MS,
      durationMs: settings.durationMs,
    });
    for (const line of lines) out(line);
    if (!settings.cpuProfDir) {
      out('(the profile and flame graph are deleted on exit: set BENCH_CPU_PROF_DIR to keep them)');
    }
  }
}

await runBench(main);
