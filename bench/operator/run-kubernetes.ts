// `npm run --workspace @portcullis/bench operator-kubernetes`: the operator in Kubernetes mode on the real
// API server (etcd + kube-apiserver from `npm run peers`) with 10,000 RateLimitConfigs, 1,000 ApiRoutes and
// 1,000 InboxEndpoints: time to the first full push, single-edit latency, the operator's CPU and memory,
// and the bytes of each xDS push. Prints figures; asserts nothing.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { startControlPlane, type CpuProfile } from '@portcullis/testing';
import { readBenchSettings, readCount } from '../common/bench-settings.js';
import { formatProfileSummary, summarizeCpuProfile } from '../common/cpu-profile.js';
import { describeMachine, today } from '../common/machine.js';
import { percentile } from '../common/percentile.js';
import { distinctFreePorts } from '../common/ports.js';
import { readProcessesCpuMs, readProcessesRssBytes } from '../common/process-group.js';
import { runBench, type OnCleanup } from '../common/run-bench.js';
import { formatAligned } from '../common/table.js';
import { createAll, editRateLimitConfig, type ClusterCounts } from './cluster-resources.js';
import { waitForFirstConfig, waitUntilServed, type PollCost } from './converge.js';
import { domainOf } from './manifests.js';
import { RECONCILE_COUNT, sampleSum, scrapeMetrics } from './operator-metrics.js';
import { startOperator, startRateLimit, type RateLimitInstance } from './processes.js';
import { API_ROUTE_TYPE, INBOX_ENDPOINT_TYPE, startXdsCounter } from './xds-counter.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const FIRST_PUSH_TIMEOUT_MS = 600_000;
/** The operator is quiet once no reconcile has run for this long and no status waits to be written. */
const QUIET_MS = 3000;
const SETTLE_MS = 300;
/** The debug port's limit on a CPU profile. */
const PROFILE_SECONDS_MAX = 60;
const RESPONSES = 'portcullis_operator_xds_responses_total';
const QUEUE_DEPTH = 'portcullis_operator_queue_depth';
const STATUS_WRITES_PENDING = 'portcullis_operator_status_writes_pending';
const SHADOW_WRITES = 'portcullis_operator_shadow_report_writes_total';
/** Between two scrapes of the operator's metrics: each costs it about a millisecond of CPU. */
const POLL_MS = 250;
const RESPONSE_BYTES = 'portcullis_operator_xds_response_bytes_total';

interface Settings {
  counts: ClusterCounts;
  instances: number;
  edits: number;
  concurrency: number;
  cpuProfDir: string | undefined;
}

function readSettings(env: NodeJS.ProcessEnv): Settings {
  const int = (name: string, fallback: number): number => readCount(env, name, fallback);
  return {
    counts: {
      rateLimitConfigs: int('BENCH_RATE_LIMIT_CONFIGS', 10_000),
      apiRoutes: int('BENCH_API_ROUTES', 1000),
      inboxEndpoints: int('BENCH_INBOX_ENDPOINTS', 1000),
    },
    instances: int('BENCH_INSTANCES', 2),
    edits: int('BENCH_EDITS', 7),
    concurrency: int('BENCH_CREATE_CONCURRENCY', 32),
    cpuProfDir: readBenchSettings(env).cpuProfDir,
  };
}

const out = (text: string): boolean => process.stdout.write(`${text}\n`);
const ms = (n: number): string => n.toFixed(0);
const mib = (bytes: number): string => (bytes / 2 ** 20).toFixed(0);

/** Peak resident memory of a process, sampled every 200 ms until `stop`. */
function trackPeakRss(pid: number): { peak(): number; now(): number; stop(): void } {
  let peak = 0;
  const read = (): number => readProcessesRssBytes([pid]) ?? Number.NaN;
  const timer = setInterval(() => (peak = Math.max(peak, read())), 200);
  return { peak: () => peak, now: read, stop: () => clearInterval(timer) };
}

/**
 * Waits until no change waits for a reconcile, no status waits to be written (the first reconcile's take
 * minutes at 10,000), and neither reconciles nor shadow-report writes have moved for `QUIET_MS`; with
 * `shadowReports`, also until that many shadow-mode reports are written (the first round, a minute after
 * the start, writes one per served RateLimitConfig: 10,000 PATCHes that would otherwise land among the edits).
 */
async function waitQuiet(metricsUrl: string, o: { shadowReports?: number } = {}): Promise<void> {
  let last = '';
  let since = performance.now();
  for (;;) {
    const metrics = await scrapeMetrics(metricsUrl);
    const moving = `${sampleSum(metrics, RECONCILE_COUNT)} ${sampleSum(metrics, SHADOW_WRITES)}`;
    const busy =
      sampleSum(metrics, QUEUE_DEPTH) + sampleSum(metrics, STATUS_WRITES_PENDING) > 0 ||
      sampleSum(metrics, SHADOW_WRITES, 'result="written"') < (o.shadowReports ?? 0);
    if (moving !== last || busy) [last, since] = [moving, performance.now()];
    else if (performance.now() - since >= QUIET_MS) return;
    await sleep(POLL_MS);
  }
}

/**
 * With `BENCH_CPU_PROF_DIR`, a V8 CPU profile of the operator's next `seconds` from its debug port, written to
 * `<dir>/<name>.cpuprofile` (a `--cpu-prof` profile, written on exit, would cover the whole run and is lost
 * when a slow shutdown ends in SIGKILL).
 */
async function takeProfile(
  url: string | undefined,
  dir: string | undefined,
  name: string,
  seconds: number,
): Promise<CpuProfile | undefined> {
  if (!url || !dir) return undefined;
  const res = await fetch(`${url}/profile?seconds=${seconds}`);
  if (res.status !== 200) throw new Error(`${url}/profile: HTTP ${res.status} ${await res.text()}`);
  const text = await res.text();
  const file = join(dir, `${name}.cpuprofile`);
  await mkdir(dir, { recursive: true });
  await writeFile(file, text);
  out(`CPU profile of ${seconds} s: ${file}`);
  return JSON.parse(text) as CpuProfile;
}

/** Responses sent and their bytes for one type, from the operator's metrics. */
function sent(metrics: string, type: string): { responses: number; bytes: number } {
  const label = `type="${type}"`;
  return {
    responses: sampleSum(metrics, RESPONSES, label),
    bytes: sampleSum(metrics, RESPONSE_BYTES, label),
  };
}

async function main(onCleanup: OnCleanup): Promise<void> {
  const s = readSettings(process.env);
  const { counts } = s;
  const cp = await startControlPlane({ crds: [join(REPO, 'crds')] });
  onCleanup(() => cp.close());
  const kubeConfig = cp.kubeConfig();
  const rpu = (i: number): number => 100 + i;
  const createdMs = await createAll(kubeConfig, counts, { concurrency: s.concurrency, rpu });
  const total = counts.rateLimitConfigs + counts.apiRoutes + counts.inboxEndpoints;
  out(
    `created ${total} resources in ${ms(createdMs)} ms (${ms((total * 1000) / createdMs)}/s, ` +
      `${s.concurrency} in flight)`,
  );

  const free = await distinctFreePorts(4 + 3 * s.instances);
  const port = (): number => {
    const p = free.pop();
    if (p === undefined) throw new Error('not enough free ports');
    return p;
  };
  const ports = { xds: port(), health: port(), metrics: port(), ...(s.cpuProfDir ? { debug: port() } : {}) };
  // The subscribers wait for the operator (they retry every 200 ms), so its first push is measured whole.
  const instances: RateLimitInstance[] = await Promise.all(
    Array.from({ length: s.instances }, (_, k) =>
      startRateLimit(
        {
          nodeId: `bench-ratelimit-${k + 1}`,
          xdsPort: ports.xds,
          ports: { http: port(), grpc: port(), debug: port() },
        },
        onCleanup,
      ),
    ),
  );
  const counter = startXdsCounter({ xdsPort: ports.xds }, onCleanup);
  const cost: PollCost = { probe: [], rlconfig: [] };
  const expected = Array.from({ length: counts.rateLimitConfigs }, (_, i) => rpu(i));
  const last = counts.rateLimitConfigs - 1;

  const t0 = performance.now();
  const operator = await startOperator(
    {
      sourceEnv: {
        OPERATOR_SOURCE: 'kubernetes',
        KUBECONFIG: cp.kubeconfigPath,
        OPERATOR_NAMESPACE: 'default',
        LEADER_ELECTION: 'false',
      },
      ports,
    },
    onCleanup,
  );
  const readyMs = performance.now() - t0;
  // a failure from here on says what the operator last wrote (it logs at warn and above only)
  onCleanup(() => {
    if (operator.child.lineCount() > 0 || operator.child.isExited())
      process.stderr.write(
        `operator (exited: ${operator.child.isExited()}):\n${operator.child.outputTail()}\n`,
      );
    return Promise.resolve();
  });
  const profile = (name: string, seconds: number): Promise<CpuProfile | undefined> =>
    takeProfile(operator.profilesUrl, s.cpuProfDir, name, seconds);
  const startProfiled = profile('operator-start', PROFILE_SECONDS_MAX);
  const pid = operator.child.pid;
  const rss = trackPeakRss(pid);
  onCleanup(() => Promise.resolve(rss.stop()));
  const [ratelimitMs, otherMs] = await Promise.all([
    Promise.all(
      instances.map(
        async (inst) => (
          await waitForFirstConfig(inst, FIRST_PUSH_TIMEOUT_MS),
          await waitUntilServed(inst, {
            expected,
            probeDomain: domainOf(last, counts.rateLimitConfigs),
            probeValue: rpu(last),
            since: t0,
            cost,
            timeoutMs: FIRST_PUSH_TIMEOUT_MS,
          })
        ),
      ),
    ),
    counter
      .waitFor({ [API_ROUTE_TYPE]: counts.apiRoutes, [INBOX_ENDPOINT_TYPE]: counts.inboxEndpoints })
      .then(() => performance.now() - t0),
  ]);
  const firstPushMs = Math.max(...ratelimitMs, otherMs);
  const firstPushCpuMs = readProcessesCpuMs([pid]) ?? Number.NaN;
  const afterFirst = await scrapeMetrics(operator.metricsUrl);
  out(
    `first full push: ratelimit ${ratelimitMs.map(ms).join(', ')} ms, ApiRoutes + InboxEndpoints ${ms(otherMs)} ms`,
  );
  await waitQuiet(operator.metricsUrl, { shadowReports: counts.rateLimitConfigs });
  const settledMs = performance.now() - t0 - QUIET_MS;
  const settledCpuMs = readProcessesCpuMs([pid]) ?? Number.NaN;
  const settledRss = rss.now();
  out(`quiet (statuses and shadow-mode reports written) after ${ms(settledMs)} ms`);

  const current = [...expected];
  const editMs: number[] = [];
  await startProfiled;
  const editsProfiled = profile('operator-edits', Math.min(PROFILE_SECONDS_MAX, s.edits * 5));
  const editsFrom = {
    cpu: readProcessesCpuMs([pid]) ?? Number.NaN,
    metrics: await scrapeMetrics(operator.metricsUrl),
  };
  for (let run = 1; run <= s.edits; run++) {
    const i = Math.floor(((run - 0.5) * counts.rateLimitConfigs) / s.edits);
    current[i] = (current[i] ?? 0) + counts.rateLimitConfigs;
    await sleep(SETTLE_MS);
    const since = performance.now();
    const name = domainOf(i, counts.rateLimitConfigs);
    await editRateLimitConfig(kubeConfig, name, current[i] ?? 0);
    const perInstance = await Promise.all(
      instances.map((inst) =>
        waitUntilServed(inst, { expected: current, probeDomain: name, probeValue: current[i], since, cost }),
      ),
    );
    editMs.push(Math.max(...perInstance));
    out(`edit ${run}/${s.edits} (${name}): ${perInstance.map(ms).join(', ')} ms`);
    // the status write that follows the edit, and the reconcile it causes, belong to this edit
    await waitQuiet(operator.metricsUrl);
  }
  const editsCpuMs = (readProcessesCpuMs([pid]) ?? Number.NaN) - editsFrom.cpu;
  const editsProfile = await editsProfiled;
  const afterEdits = await scrapeMetrics(operator.metricsUrl);
  rss.stop();

  const date = today();
  const machine = describeMachine();
  const pushBytes = (from: string, to: string, type: string): string => {
    const a = sent(from, type);
    const b = sent(to, type);
    const n = b.responses - a.responses;
    return n > 0 ? `${((b.bytes - a.bytes) / n / 1024).toFixed(1)} KiB × ${n}` : '–';
  };
  const sorted = [...editMs].sort((a, b) => a - b);
  const rows: string[][] = [
    ['figure', 'value'],
    ['operator ready (informers listed all)', `${ms(readyMs)} ms`],
    ['first full push, all served', `${ms(firstPushMs)} ms`],
    ['operator CPU until then', `${ms(firstPushCpuMs)} ms`],
    ['quiet: statuses and first shadow-mode reports written', `${ms(settledMs)} ms`],
    ['operator CPU until then', `${ms(settledCpuMs)} ms`],
    ['operator RSS: settled / peak', `${mib(settledRss)} / ${mib(rss.peak())} MiB`],
    [
      `single edit, all served p50 / max (${s.edits})`,
      `${ms(percentile(sorted, 0.5))} / ${ms(sorted.at(-1) ?? Number.NaN)} ms`,
    ],
    ['operator CPU per edit (with its status write)', `${ms(editsCpuMs / s.edits)} ms`],
    ['RateLimitConfig push, first (bytes × responses)', pushBytes('', afterFirst, 'RateLimitConfig')],
    ['ApiRoute push, first', pushBytes('', afterFirst, 'ApiRoute')],
    ['InboxEndpoint push, first', pushBytes('', afterFirst, 'InboxEndpoint')],
    ['RateLimitConfig push, per edit', pushBytes(editsFrom.metrics, afterEdits, 'RateLimitConfig')],
  ];
  out('');
  out(`${date}, ${machine}, load average before the run: see the README`);
  out(
    `${counts.rateLimitConfigs} RateLimitConfigs, ${counts.apiRoutes} ApiRoutes, ${counts.inboxEndpoints} ` +
      `InboxEndpoints created through the real API server before the operator starts (Kubernetes mode, ` +
      `no leader election, statuses written); ${s.instances} rate-limit instances and one xDS client ` +
      'counting ApiRoutes and InboxEndpoints subscribe over xDS SOTW. Times from the operator spawn ' +
      '(first push) or from the PATCH (edits) until every instance serves the change.',
  );
  out(formatAligned(rows));
  const tail = (xs: readonly number[]): string =>
    `p50 ${percentile(
      [...xs].sort((a, b) => a - b),
      0.5,
    ).toFixed(1)} ms`;
  out(`poll requests: POST /json ${tail(cost.probe)}; /rlconfig ${tail(cost.rlconfig)}`);
  // the instances log each refused connection before the operator listens
  const children = [operator.child, ...instances.map((i) => i.child)];
  out(`log lines at warn or above: ${children.map((c) => `${c.name} ${c.lineCount()}`).join(', ')}`);
  for (const child of children) {
    const messages = logMessages(child.outputTail());
    if (messages.size > 0)
      out(
        `  ${child.name}, the last lines kept: ${[...messages].map(([m, n]) => `${n} × "${m}"`).join(', ')}`,
      );
  }
  if (editsProfile) {
    out('\noperator CPU during the edits:');
    const all = { fromUs: 0, toUs: Number.POSITIVE_INFINITY };
    for (const line of formatProfileSummary(summarizeCpuProfile(editsProfile, { window: all, top: 12 })))
      out(`  ${line}`);
  }
}

/** The message of each log line in `tail` (`LOG_FORMAT=json`, see `processes.ts`), counted. */
function logMessages(tail: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const line of tail.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      const msg = String((JSON.parse(line) as { '@message'?: unknown })['@message']);
      counts.set(msg, (counts.get(msg) ?? 0) + 1);
    } catch {
      // the tail's first line may be cut
    }
  }
  return counts;
}

await runBench(main);
