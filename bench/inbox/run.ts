// `npm run --workspace @portcullis/bench inbox`: captures/s through a receive URL (the inbox as its own
// process with INBOX_WORKERS workers, on Redis) next to a bare fastify POST route with as many processes,
// measured in the same run; capture-to-SSE latency with 1 subscriber, 100 on 100 endpoints and 1,000 on one;
// forwarded requests/s (the forwarding worker as its own process, a managed endpoint over xDS) next to the
// same target hit directly, and capture-to-forward latency. `BENCH_INBOX_WORKERS` sets the process count (one
// per usable CPU unless set), `BENCH_ONLY` one part (`capture`, `sse` or `forwarding`). Prints figures and the
// README's markdown; asserts nothing.
import { usableCpus } from '@portcullis/kit';
import { startRedis } from '@portcullis/testing';
import { readBenchSettings, readCount } from '../common/bench-settings.js';
import { spawnNode, type Child } from '../common/child-process.js';
import { describeMachine, today } from '../common/machine.js';
import { requireLoadTools } from '../common/load-tools.js';
import { formatErrors } from '../common/measure.js';
import { createH2load } from '../common/h2load.js';
import { distinctFreePorts } from '../common/ports.js';
import { serviceBundle } from '../common/service-bundle.js';
import { spawnPortsChild } from '../common/ports-child.js';
import { formatMarkdown, formatTable, ratioOf, type Row } from '../common/report.js';
import { runBench, type OnCleanup } from '../common/run-bench.js';
import { measureWithTool } from '../common/tool-measure.js';
import { waitForHttpOk } from '../common/wait-for-http.js';
import { FORWARDING_ENDPOINT_ID, serveForwardingEndpoint } from './forwarding-endpoint.js';
import { measureForwarding } from './forwarding.js';
import { createPostLoad } from './post-load.js';
import { measureForwardLatency } from './forward-latency.js';
import { measureSseFanout, type SseFanout } from './sse-fanout.js';

const WARMUP_MS = 1000;
const CONCURRENCY = 64;
const READY_TIMEOUT_MS = 30_000;
/** Issue 37's goals: this share of bare fastify's requests/s at most this multiple of its p99, ... */
const GOAL_RATIO = 0.7;
const GOAL_P99_MULTIPLE = 2;
/** ... this share of direct delivery's requests/s, and capture → SSE p99 within this. */
const GOAL_FORWARD_RATIO = 0.5;
const GOAL_SSE_P99_MS = 5;
/** Capture → SSE: subscribers over endpoints, and captures sent one at a time. */
const SSE_ROUNDS = [
  { subscribers: 1, endpoints: 1, captures: 500 },
  { subscribers: 100, endpoints: 100, captures: 500 },
  { subscribers: 1000, endpoints: 1, captures: 100 },
] as const;
const FORWARD_LATENCY_CAPTURES = 300;
const FORWARD_WARMUP_CAPTURES = 2000;
const FORWARD_CAPTURES = 20_000;
/** The worker's `INBOX_WORKER_MAX_IN_FLIGHT` (its default), and the direct ceiling's concurrency. */
const FORWARD_IN_FLIGHT = 32;
const FORWARD_TIMEOUT_MS = 120_000;
const REPORT = { rateLabel: 'captures/s' };
const FORWARD_REPORT = { rateLabel: 'requests/s' };
const BODY = Buffer.from(JSON.stringify({ event: 'order.created', id: 42, amount: '9.99' }));
const isCaptured = (body: string): string | undefined =>
  body.startsWith('{"ok":true') ? undefined : `unexpected body ${body.slice(0, 60)}`;
const isEmpty = (body: string): string | undefined =>
  body === '' ? undefined : `unexpected body ${body.slice(0, 60)}`;

const out = (text: string): boolean => process.stdout.write(`${text}\n`);
const ms = (n: number): string => n.toFixed(2);

const PARTS = ['capture', 'sse', 'forwarding'] as const;
type Part = (typeof PARTS)[number];

/** `BENCH_ONLY`: the one part to run; all when unset. */
function readParts(env: NodeJS.ProcessEnv): ReadonlySet<Part> {
  const only = env.BENCH_ONLY;
  if (!only) return new Set(PARTS);
  const part = PARTS.find((p) => p === only);
  if (!part) throw new Error(`BENCH_ONLY="${only}": expected one of ${PARTS.join(', ')}`);
  return new Set([part]);
}

interface Context {
  onCleanup: OnCleanup;
  durationMs: number;
  workers: number;
  port: number;
  inbox: Child;
  createEndpoint: () => Promise<{ id: string; token: string }>;
  spawnInbox: (name: string, port: number, fallbackCapturePerMinute: string) => Child;
  /** For the markdown tables. */
  stamp: { date: string; machine: string };
}

/** What a part prints: its figures as they come, then its markdown for the README. */
interface PartReport {
  report: string[];
  markdown: string[];
}

async function main(onCleanup: OnCleanup): Promise<void> {
  requireLoadTools();
  const settings = readBenchSettings(process.env);
  const workers = readCount(process.env, 'BENCH_INBOX_WORKERS', await usableCpus());
  const parts = readParts(process.env);
  const redis = await startRedis();
  onCleanup(() => redis.stop());
  const target = await spawnPortsChild(
    { name: 'forward target', script: 'bench/inbox/target-server.ts' },
    ['port'],
    onCleanup,
  );
  const targetUrl = `http://127.0.0.1:${target.ports.port}`;
  const xdsPort = await serveForwardingEndpoint(
    { targetUrl: `${targetUrl}/hooks`, maxRequests: FORWARD_WARMUP_CAPTURES + FORWARD_CAPTURES },
    onCleanup,
  );
  const [port] = (await distinctFreePorts(1)) as [number];
  const redisUrl = `redis://${redis.address}`;
  const [inboxBundle, workerBundle] = await Promise.all([
    serviceBundle('inbox'),
    serviceBundle('inbox-worker'),
  ]);
  // node:cluster forks the workers with the primary's flags, so each writes a profile of its own
  const profileFlags = settings.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${settings.cpuProfDir}`] : [];
  const spawnInbox = (name: string, inboxPort: number, fallbackCapturePerMinute: string): Child => {
    const child = spawnNode({
      name,
      script: inboxBundle.script,
      nodeFlags: profileFlags,
      env: {
        ...inboxBundle.env,
        INBOX_PORT: String(inboxPort),
        INBOX_FALLBACK_CAPTURE_PER_MINUTE: fallbackCapturePerMinute,
        INBOX_HOST: '127.0.0.1',
        REDIS_URL: redisUrl,
        // enough for the whole run: the count trim keeps the stream small
        INBOX_RETENTION_MAX_REQUESTS: '1000',
        INBOX_FALLBACK_CREATE_ENDPOINT_PER_MINUTE: '0',
        // the fan-out's 1,000 subscribers come from one address
        INBOX_SSE_MAX_STREAMS_PER_ADDRESS: '2000',
        INBOX_WORKERS: String(workers),
        // the bench stops it with a grace period: no readiness delay before the drain (profiles are written at exit)
        INBOX_SHUTDOWN_DELAY: '0s',
        INBOX_XDS_SERVER_URL: `127.0.0.1:${xdsPort}`,
        LOG_LEVEL: 'warn',
      },
    });
    onCleanup(() => child.stop());
    return child;
  };
  // no ratelimit service here: the in-process fallback (600 a minute per endpoint) would cap the run
  const inbox = spawnInbox('inbox', port, '0');
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitForHttpOk(`${baseUrl}/healthz`, inbox, READY_TIMEOUT_MS);
  const createEndpoint = async (): Promise<{ id: string; token: string }> => {
    const created = await fetch(`${baseUrl}/api/endpoints`, { method: 'POST' });
    if (created.status !== 201) throw new Error(`creating an endpoint answered ${created.status}`);
    return (await created.json()) as { id: string; token: string };
  };
  const ctx: Context = {
    onCleanup,
    durationMs: settings.durationMs,
    workers,
    port,
    inbox,
    createEndpoint,
    spawnInbox,
    stamp: { date: today(), machine: describeMachine() },
  };
  const reports: PartReport[] = [];
  if (parts.has('capture')) reports.push(await measureCapture(ctx));
  if (parts.has('sse')) reports.push(await measureSse(ctx));
  if (parts.has('forwarding')) {
    const worker = spawnNode({
      name: 'forwarding worker',
      script: workerBundle.script,
      nodeFlags: profileFlags,
      env: {
        ...workerBundle.env,
        REDIS_URL: redisUrl,
        INBOX_WORKER_NAME: 'bench',
        INBOX_WORKER_MAX_IN_FLIGHT: String(FORWARD_IN_FLIGHT),
        INBOX_EGRESS_ALLOW_PRIVATE: 'true', // the target is on loopback
        LOG_LEVEL: 'warn',
      },
    });
    onCleanup(() => worker.stop());
    reports.push(await measureForwardingPart(ctx, { target: target.child, targetUrl, worker }));
  }

  const { date, machine } = ctx.stamp;
  out('');
  out(`${date}, ${machine}`);
  out(
    `wrk, ${CONCURRENCY} keep-alive connections with one request in flight on each, ${WARMUP_MS} ms warm-up, ` +
      `${settings.durationMs} ms measured; a ${BODY.length}-byte JSON body; CPU 100% = one core; ` +
      'other CPU = machine - client - server (Redis, anything else running).',
  );
  for (const { report } of reports) for (const line of ['', ...report]) out(line);
  for (const { markdown } of reports) for (const line of ['', ...markdown]) out(line);
}

const measureOptions = (ctx: Context, watched: readonly Child[]) => ({
  warmupMs: WARMUP_MS,
  durationMs: ctx.durationMs,
  watched,
});

/** Captures/s next to bare fastify with as many processes, and with the fallback limiter counting. */
async function measureCapture(ctx: Context): Promise<PartReport> {
  const ceiling = await spawnPortsChild(
    {
      name: 'bare fastify',
      script: 'bench/inbox/ceiling-server.ts',
      env: { CEILING_WORKERS: String(ctx.workers) },
    },
    ['port'],
    ctx.onCleanup,
  );
  const endpoint = await ctx.createEndpoint();
  const [limitedPort] = (await distinctFreePorts(1)) as [number];
  const watched = [ceiling.child, ctx.inbox];
  const o = measureOptions(ctx, watched);
  const load = (p: number, path: string) =>
    createPostLoad({ port: p, path, body: BODY, connections: CONCURRENCY, check: isCaptured });
  const top = await measureWithTool(
    `bare fastify POST (${ctx.workers} processes)`,
    await load(ceiling.ports.port, '/api/hook/x'),
    { ...o, servers: [ceiling.child.pid] },
  );
  const got = await measureWithTool(
    `inbox capture (Redis, ${ctx.workers} workers)`,
    await load(ctx.port, `/api/hook/${endpoint.id}`),
    { ...o, servers: [ctx.inbox.pid] },
  );
  const row: Row = { ...got, ceiling: top.summary };
  // what the fallback limiter costs a capture: counting, at a limit the run never reaches
  const limited = ctx.spawnInbox('inbox (fallback limiter)', limitedPort, '1000000');
  await waitForHttpOk(`http://127.0.0.1:${limitedPort}/healthz`, limited, READY_TIMEOUT_MS);
  const gotLimited = await measureWithTool(
    `inbox capture, fallback limiter counting (${ctx.workers} workers)`,
    await load(limitedPort, `/api/hook/${endpoint.id}`),
    { ...o, servers: [limited.pid], watched: [...watched, limited] },
  );
  await limited.stop();
  const rows = [top, row, { ...gotLimited, ceiling: top.summary }];
  const ratio = ratioOf(row) ?? Number.NaN;
  const p99Multiple = got.summary.p99Ms / top.summary.p99Ms;
  const captureMet = ratio >= GOAL_RATIO && p99Multiple <= GOAL_P99_MULTIPLE;
  return {
    report: [
      formatTable(rows, REPORT),
      '',
      ...formatErrors([top, got, gotLimited]),
      `inbox log lines at warn or above: ${ctx.inbox.lineCount()}`,
      `capture: ${ratio.toFixed(2)} of bare fastify at ${p99Multiple.toFixed(2)}× its p99 ` +
        `(goal ≥ ${GOAL_RATIO} at ≤ ${GOAL_P99_MULTIPLE}×): ${captureMet ? 'meets it' : 'below it'}`,
    ],
    markdown: [formatMarkdown(rows, { ...REPORT, ...ctx.stamp })],
  };
}

/** Capture → SSE latency at each of `SSE_ROUNDS`. */
async function measureSse(ctx: Context): Promise<PartReport> {
  const endpoints: Array<{ id: string; token: string }> = [];
  while (endpoints.length < Math.max(...SSE_ROUNDS.map((r) => r.endpoints))) {
    endpoints.push(await ctx.createEndpoint());
  }
  const sse: Array<{ label: string; got: SseFanout }> = [];
  for (const round of SSE_ROUNDS) {
    const label = `${round.subscribers} subscriber${round.subscribers > 1 ? 's' : ''} on ${round.endpoints} endpoint${round.endpoints > 1 ? 's' : ''}`;
    out(`running: capture to SSE, ${label}, ${round.captures} captures one at a time`);
    const got = await measureSseFanout({
      port: ctx.port,
      endpoints: endpoints.slice(0, round.endpoints),
      subscribers: round.subscribers,
      captures: round.captures,
    });
    sse.push({ label, got });
  }
  const sseTable = [
    '| capture → SSE | events | from answer p50 ms | p99 ms | from sending p50 ms | p99 ms |',
    '| --- | ---: | ---: | ---: | ---: | ---: |',
    ...sse.map(
      ({ label, got: f }) =>
        `| ${label} | ${f.fromAck.count} | ${ms(f.fromAck.p50Ms)} | ${ms(f.fromAck.p99Ms)} | ` +
        `${ms(f.fromSent.p50Ms)} | ${ms(f.fromSent.p99Ms)} |`,
    ),
  ];
  return {
    report: [
      'capture → SSE: captures sent one at a time (each once every stream of its endpoint had the one before), ' +
        "each stream's event timed from the capture's answer (0 when the event came first) and from its sending; " +
        `the subscribers are this Node process. Goal: p99 ≤ ${GOAL_SSE_P99_MS} ms.`,
      '',
      ...sseTable,
    ],
    markdown: sseTable,
  };
}

/** Forwarded requests/s end to end next to the target hit directly, then capture → forward latency. */
async function measureForwardingPart(
  ctx: Context,
  f: { target: Child; targetUrl: string; worker: Child },
): Promise<PartReport> {
  const forwardWatched = [f.target, ctx.inbox, f.worker];
  const direct = await measureWithTool(
    'target hit directly (ceiling)',
    await createPostLoad({
      port: Number(new URL(f.targetUrl).port),
      path: '/hooks',
      body: BODY,
      connections: FORWARD_IN_FLIGHT,
      check: isEmpty,
    }),
    { ...measureOptions(ctx, forwardWatched), servers: [f.target.pid] },
  );
  const forwarded = await measureForwarding('forwarded by the worker (end to end)', {
    capture: await createH2load({
      port: ctx.port,
      path: `/api/hook/${FORWARDING_ENDPOINT_ID}`,
      body: BODY,
      headers: { 'content-type': 'application/json' },
      connections: CONCURRENCY,
      streamsPerConnection: 1,
      protocol: 'h1',
    }),
    targetUrl: f.targetUrl,
    warmupCaptures: FORWARD_WARMUP_CAPTURES,
    captures: FORWARD_CAPTURES,
    timeoutMs: FORWARD_TIMEOUT_MS,
    servers: [f.worker],
    watched: forwardWatched,
  });
  const forwardRow: Row = { ...forwarded, ceiling: direct.summary };
  out(`running: capture to forward, ${FORWARD_LATENCY_CAPTURES} captures one at a time`);
  const { fromAck, fromSent } = await measureForwardLatency({
    hookUrl: `http://127.0.0.1:${ctx.port}/api/hook/${FORWARDING_ENDPOINT_ID}`,
    targetUrl: f.targetUrl,
    captures: FORWARD_LATENCY_CAPTURES,
  });
  const forwardRows = [direct, forwardRow];
  const latencyLine =
    `capture → forward (${fromAck.count} captures one at a time, the target receiving each): from the ` +
    `capture's answer p50 ${ms(fromAck.p50Ms)} ms, p99 ${ms(fromAck.p99Ms)} ms (0 when the target had it ` +
    `first); from its sending p50 ${ms(fromSent.p50Ms)} ms, p99 ${ms(fromSent.p99Ms)} ms`;
  return {
    report: [
      `forwarding: ${FORWARD_CAPTURES} captures sent ${CONCURRENCY} at a time (after ${FORWARD_WARMUP_CAPTURES} ` +
        `to warm up, by h2load over HTTP/1.1), the worker forwarding up to ${FORWARD_IN_FLIGHT} at once over kept connections; ` +
        `the ceiling sends the same body over ${FORWARD_IN_FLIGHT} keep-alive connections. ` +
        'Server CPU = the target (ceiling) or the worker (forwarded); the inbox and Redis count as other.',
      '',
      formatTable(forwardRows, FORWARD_REPORT),
      '',
      ...formatErrors([direct, forwarded]),
      `worker log lines at warn or above: ${f.worker.lineCount()}`,
      `forwarded: ${forwarded.summary.count} captures, all taken ${Math.round(forwarded.capturedMs)} ms after ` +
        `the first was sent, all received by the target after ${Math.round(forwarded.deliveredMs)} ms: ` +
        `${(ratioOf(forwardRow) ?? Number.NaN).toFixed(2)} of direct delivery (goal ≥ ${GOAL_FORWARD_RATIO})`,
      latencyLine,
    ],
    markdown: [formatMarkdown(forwardRows, { ...FORWARD_REPORT, ...ctx.stamp }), '', latencyLine],
  };
}

await runBench(main);
