// `npm run --workspace @portcullis/bench operator`: how long a change to RateLimitConfig manifests takes to
// be served by every rate-limit instance (directory source → reconcile → xDS SOTW → service), for a full
// push of every resource and for an edit of one. Prints figures; asserts nothing.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { readCount } from '../common/bench-settings.js';
import { describeMachine, today } from '../common/machine.js';
import { percentile } from '../common/percentile.js';
import { distinctFreePorts } from '../common/ports.js';
import { runBench, type OnCleanup } from '../common/run-bench.js';
import {
  POLL_MS,
  readConfigLoads,
  waitForFirstConfig,
  waitUntilServed,
  type PollCost,
  type WaitOptions,
} from './converge.js';
import { ManifestFile, domainOf } from './manifests.js';
import {
  NACKS,
  NO_WORK,
  PUSHES,
  RECONCILE_COUNT,
  RECONCILE_SUM,
  addWork,
  sampleLines,
  scrapeMetrics,
  workBetween,
  type OperatorWork,
} from './operator-metrics.js';
import { startOperator, startRateLimit, type OperatorProcess, type RateLimitInstance } from './processes.js';
import { figures, formatMarkdown, formatTable, type Row } from './report.js';

/** Fixed waits on the path, both in the operator: the directory watcher's debounce, then the reconcile's. */
const DIRECTORY_DEBOUNCE_MS = 100;
const RECONCILE_DEBOUNCE_MS = 20;
/** Quiet time between runs, so that no timer or collection of the previous one overlaps the next. */
const SETTLE_MS = 300;

interface BenchSettings {
  instances: number;
  resources: number;
  fullPushes: number;
  edits: number;
}

function readSettings(env: NodeJS.ProcessEnv): BenchSettings {
  const int = (name: string, fallback: number): number => readCount(env, name, fallback);
  return {
    instances: int('BENCH_INSTANCES', 3),
    resources: int('BENCH_RESOURCES', 1000),
    fullPushes: int('BENCH_FULL_PUSHES', 3),
    edits: int('BENCH_EDITS', 5),
  };
}

const out = (text: string): boolean => process.stdout.write(`${text}\n`);
const ms = (n: number): string => n.toFixed(0);

interface Fleet {
  operator: OperatorProcess;
  instances: readonly RateLimitInstance[];
  cost: PollCost;
}

/** Waits until every instance serves the change; each one's time. */
function waitForAll(fleet: Fleet, o: Omit<WaitOptions, 'cost'>): Promise<number[]> {
  return Promise.all(fleet.instances.map((inst) => waitUntilServed(inst, { ...o, cost: fleet.cost })));
}

/**
 * Publishes the staged manifests and waits until every instance serves `expected`; returns each instance's
 * time and what the operator did meanwhile (from its metrics, scraped before the publish and after).
 */
async function publishAndWait(
  fleet: Fleet,
  file: ManifestFile,
  o: Omit<WaitOptions, 'cost' | 'since'>,
): Promise<{ perInstance: number[]; work: OperatorWork }> {
  const before = await scrapeMetrics(fleet.operator.metricsUrl);
  const since = performance.now();
  await file.publish();
  const perInstance = await waitForAll(fleet, { ...o, since });
  const work = workBetween(before, await scrapeMetrics(fleet.operator.metricsUrl));
  return { perInstance, work };
}

async function startFleet(s: BenchSettings, manifestsDir: string, onCleanup: OnCleanup): Promise<Fleet> {
  const free = await distinctFreePorts(3 + 3 * s.instances);
  const port = (): number => {
    const p = free.pop();
    if (p === undefined) throw new Error('not enough free ports');
    return p;
  };
  const operator = await startOperator(
    {
      sourceEnv: { OPERATOR_SOURCE: 'directory', OPERATOR_MANIFESTS_DIR: manifestsDir },
      ports: { xds: port(), health: port(), metrics: port() },
    },
    onCleanup,
  );
  const instances = await Promise.all(
    Array.from({ length: s.instances }, (_, k) =>
      startRateLimit(
        {
          nodeId: `bench-ratelimit-${k + 1}`,
          xdsPort: operator.xdsPort,
          ports: { http: port(), grpc: port(), debug: port() },
        },
        onCleanup,
      ),
    ),
  );
  // Every instance has the operator's first (empty) snapshot before anything is measured.
  await Promise.all(instances.map((inst) => waitForFirstConfig(inst)));
  return { operator, instances, cost: { probe: [], rlconfig: [] } };
}

async function main(onCleanup: OnCleanup): Promise<void> {
  const s = readSettings(process.env);
  const root = await mkdtemp(join(tmpdir(), 'portcullis-bench-operator-'));
  onCleanup(() => rm(root, { recursive: true, force: true }));
  const manifestsDir = join(root, 'manifests');
  const stagingDir = join(root, 'staging');
  await mkdir(manifestsDir);
  await mkdir(stagingDir);
  const file = new ManifestFile({ manifestsDir, stagingDir });

  out(`starting the operator and ${s.instances} rate-limit instances`);
  const fleet = await startFleet(s, manifestsDir, onCleanup);
  const initial = Array.from({ length: s.resources }, (_, i) => 100 + i);
  // A full push is seen on the last resource of the file (any would do: rules are applied whole).
  const last = s.resources - 1;
  const lastDomain = domainOf(last, s.resources);

  const fullRuns: number[][] = [];
  let fullWork = NO_WORK;
  for (let run = 1; run <= s.fullPushes; run++) {
    if (run > 1) {
      // Back to an empty directory (not measured) so that every run pushes all resources again.
      await file.remove();
      const since = performance.now();
      await waitForAll(fleet, { expected: [], probeDomain: lastDomain, probeValue: undefined, since });
    }
    await sleep(SETTLE_MS);
    await file.stage(initial);
    const r = await publishAndWait(fleet, file, {
      expected: initial,
      probeDomain: lastDomain,
      probeValue: initial[last],
    });
    fullRuns.push(r.perInstance);
    fullWork = addWork(fullWork, r.work);
    out(`full push ${run}/${s.fullPushes}: ${r.perInstance.map(ms).join(', ')} ms`);
  }

  const current = [...initial];
  const editRuns: number[][] = [];
  let editWork = NO_WORK;
  for (let run = 1; run <= s.edits; run++) {
    // Edits spread over the file, each to a value the resource never had.
    const i = Math.floor(((run - 0.5) * s.resources) / s.edits);
    current[i] = (current[i] ?? 0) + s.resources;
    await sleep(SETTLE_MS);
    await file.stage(current);
    const r = await publishAndWait(fleet, file, {
      expected: current,
      probeDomain: domainOf(i, s.resources),
      probeValue: current[i],
    });
    editRuns.push(r.perInstance);
    editWork = addWork(editWork, r.work);
    out(`single edit ${run}/${s.edits} (resource ${i + 1}): ${r.perInstance.map(ms).join(', ')} ms`);
  }

  const rows: Row[] = [
    {
      scenario: 'full push (empty dir → all)',
      resources: s.resources,
      instances: s.instances,
      runs: fullRuns,
      work: fullWork,
    },
    {
      scenario: 'single edit (1 requests_per_unit)',
      resources: s.resources,
      instances: s.instances,
      runs: editRuns,
      work: editWork,
    },
  ];
  await report(s, fleet, rows);
}

async function report(s: BenchSettings, fleet: Fleet, rows: readonly Row[]): Promise<void> {
  const metrics = await scrapeMetrics(fleet.operator.metricsUrl);
  const loads = await Promise.all(fleet.instances.map(readConfigLoads));
  const date = today();
  const machine = describeMachine();
  out('');
  out(`${date}, ${machine}`);
  out(
    `${s.resources} RateLimitConfigs (one descriptor each) in one multi-document YAML file, replaced ` +
      'atomically (written outside the watched directory, renamed into it under a new name, the previous ' +
      'version then removed: never a half-written file); operator in directory mode, ' +
      `${s.instances} rate-limit instances over xDS SOTW, all on this machine. Time from the rename until ` +
      `an instance serves the change: each instance polled every ${POLL_MS} ms with a POST /json decision ` +
      'on a changed domain; when its limit is the new one, all of /rlconfig is checked (every domain, every ' +
      'requests_per_unit). The first full push runs in fresh processes; the directory is emptied ' +
      '(unmeasured) between full pushes.',
  );
  out('');
  out(formatTable(rows));
  out('');
  const [full, edit] = rows.map(figures);
  if (full && edit) out(`single edit / full push (p50): ${(edit.p50 / full.p50).toFixed(2)}`);
  const floor = DIRECTORY_DEBOUNCE_MS + RECONCILE_DEBOUNCE_MS;
  for (const [row, f] of rows.map((r) => [r, figures(r)] as const)) {
    out(
      `${row.scenario}: runs ${f.toAll.map(ms).join(', ')} ms; first instance p50 ${ms(f.firstP50)} ms. ` +
        `Of the p50 ${ms(f.p50)} ms: ${floor} ms fixed debounce (directory ${DIRECTORY_DEBOUNCE_MS} ms + ` +
        `reconcile ${RECONCILE_DEBOUNCE_MS} ms), ${f.reconcileMs.toFixed(1)} ms reconcile, ` +
        `${ms(f.p50 - floor - f.reconcileMs)} ms rest (read and parse the whole file, xDS send, each ` +
        `instance decodes and rebuilds all rules, poll resolution ≤ ${POLL_MS} ms + one probe).`,
    );
  }
  const sorted = (xs: readonly number[]): number[] => [...xs].sort((a, b) => a - b);
  const cost = (xs: readonly number[]): string =>
    `p50 ${percentile(sorted(xs), 0.5).toFixed(1)} ms, max ${Math.max(...xs).toFixed(1)} ms (${xs.length})`;
  out(`poll requests: POST /json ${cost(fleet.cost.probe)}; /rlconfig ${cost(fleet.cost.rlconfig)}`);
  // The first (empty) snapshot, each full push and each emptying between two, each edit.
  const expectedLoads = 1 + s.fullPushes + (s.fullPushes - 1) + s.edits;
  out(
    `config loads per instance: ${loads.map((l) => l.success).join(', ')} (${expectedLoads} expected), ` +
      `load errors: ${loads.map((l) => l.error).join(', ')}`,
  );
  const work = rows.reduce((a, r) => addWork(a, r.work), NO_WORK);
  out(`NACKs during the runs: ${work.nacks}`);
  const children = [fleet.operator.child, ...fleet.instances.map((i) => i.child)];
  out(`log lines at warn or above: ${children.map((c) => `${c.name} ${c.lineCount()}`).join(', ')}`);
  for (const child of children) if (child.lineCount() > 0) out(`${child.name}:\n${child.outputTail()}`);
  out('');
  out('operator metrics at the end:');
  for (const line of sampleLines(metrics, [RECONCILE_SUM, RECONCILE_COUNT, PUSHES, NACKS])) out(`  ${line}`);
  out('');
  out(formatMarkdown(rows, { date, machine }));
}

await runBench(main);
