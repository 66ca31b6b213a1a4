// `npm run --workspace @portcullis/bench inbox`: captures/s through a receive URL (the inbox as its own
// process, on Redis) next to a bare fastify POST route measured in the same run, capture-to-SSE latency
// seen by one subscriber in this process, and forwarded requests/s (the forwarding worker as its own
// process, a managed endpoint over xDS) next to the same target hit directly. Prints figures; asserts nothing.
import { startRedis } from '@portcullis/testing';
import { readBenchSettings } from '../common/bench-settings.js';
import { spawnNode } from '../common/child-process.js';
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
import { measureSseLatency } from './sse-latency.js';

const WARMUP_MS = 1000;
const CONCURRENCY = 64;
const READY_TIMEOUT_MS = 30_000;
/** The goal: at least this share of bare fastify's requests/s. */
const GOAL_RATIO = 0.5;
const SSE_CAPTURES = 500;
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

async function main(onCleanup: OnCleanup): Promise<void> {
  requireLoadTools();
  const settings = readBenchSettings(process.env);
  const redis = await startRedis();
  onCleanup(() => redis.stop());
  const ceiling = await spawnPortsChild(
    { name: 'bare fastify', script: 'bench/inbox/ceiling-server.ts' },
    ['port'],
    onCleanup,
  );
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
  const inbox = spawnNode({
    name: 'inbox',
    script: inboxBundle.script,
    env: {
      ...inboxBundle.env,
      INBOX_HOST: '127.0.0.1',
      INBOX_PORT: String(port),
      REDIS_URL: redisUrl,
      // enough for the whole run: the count trim keeps the stream small
      INBOX_RETENTION_MAX_REQUESTS: '1000',
      // no ratelimit service here: the in-process fallback (600 a minute per endpoint) would cap the run
      INBOX_FALLBACK_CAPTURE_PER_MINUTE: '0',
      INBOX_XDS_SERVER_URL: `127.0.0.1:${xdsPort}`,
      LOG_LEVEL: 'warn',
    },
  });
  onCleanup(() => inbox.stop());
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitForHttpOk(`${baseUrl}/healthz`, inbox, READY_TIMEOUT_MS);
  const created = await fetch(`${baseUrl}/api/endpoints`, { method: 'POST' });
  const endpoint = (await created.json()) as { id: string; token: string };

  const watched = [ceiling.child, inbox];
  const o = { warmupMs: WARMUP_MS, durationMs: settings.durationMs, watched };
  const load = (p: number, path: string) =>
    createPostLoad({ port: p, path, body: BODY, connections: CONCURRENCY, check: isCaptured });
  const top = await measureWithTool('bare fastify POST', await load(ceiling.ports.port, '/api/hook/x'), {
    ...o,
    servers: [ceiling.child.pid],
  });
  const got = await measureWithTool('inbox capture (Redis)', await load(port, `/api/hook/${endpoint.id}`), {
    ...o,
    servers: [inbox.pid],
  });
  const row: Row = { ...got, ceiling: top.summary };
  const rows = [top, row];
  out(`running: capture to SSE, ${SSE_CAPTURES} captures one at a time`);
  const sse = await measureSseLatency({
    baseUrl,
    endpointId: endpoint.id,
    token: endpoint.token,
    captures: SSE_CAPTURES,
  });

  const worker = spawnNode({
    name: 'forwarding worker',
    script: workerBundle.script,
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
  const forwardWatched = [target.child, inbox, worker];
  const direct = await measureWithTool(
    'target hit directly (ceiling)',
    await createPostLoad({
      port: target.ports.port,
      path: '/hooks',
      body: BODY,
      connections: FORWARD_IN_FLIGHT,
      check: isEmpty,
    }),
    { ...o, servers: [target.child.pid], watched: forwardWatched },
  );
  const forwarded = await measureForwarding('forwarded by the worker (end to end)', {
    capture: await createH2load({
      port,
      path: `/api/hook/${FORWARDING_ENDPOINT_ID}`,
      body: BODY,
      headers: { 'content-type': 'application/json' },
      connections: CONCURRENCY,
      streamsPerConnection: 1,
      protocol: 'h1',
    }),
    targetUrl,
    warmupCaptures: FORWARD_WARMUP_CAPTURES,
    captures: FORWARD_CAPTURES,
    timeoutMs: FORWARD_TIMEOUT_MS,
    servers: [worker],
    watched: forwardWatched,
  });
  const forwardRow: Row = { ...forwarded, ceiling: direct.summary };
  const forwardRows = [direct, forwardRow];

  const ratio = ratioOf(row) ?? Number.NaN;
  const date = today();
  const machine = describeMachine();
  out('');
  out(`${date}, ${machine}`);
  out(
    `wrk, ${CONCURRENCY} keep-alive connections with one request in flight on each, ${WARMUP_MS} ms warm-up, ` +
      `${settings.durationMs} ms measured; a ${BODY.length}-byte JSON body; CPU 100% = one core; ` +
      'other CPU = machine - client - server (Redis, anything else running).',
  );
  out('');
  out(formatTable(rows, REPORT));
  out('');
  for (const line of formatErrors([top, got])) out(line);
  out(`inbox log lines at warn or above: ${inbox.lineCount()}`);
  out(
    `capture: ${ratio.toFixed(2)} of bare fastify (goal ≥ ${GOAL_RATIO}): ${ratio >= GOAL_RATIO ? 'meets it' : 'below it'}`,
  );
  out(
    `capture to SSE event (${sse.count} captures, one at a time, one subscriber): ` +
      `p50 ${sse.p50Ms.toFixed(2)} ms, p99 ${sse.p99Ms.toFixed(2)} ms`,
  );
  out('');
  out(
    `forwarding: ${FORWARD_CAPTURES} captures sent ${CONCURRENCY} at a time (after ${FORWARD_WARMUP_CAPTURES} ` +
      `to warm up, by h2load over HTTP/1.1), the worker forwarding up to ${FORWARD_IN_FLIGHT} at once over kept connections; ` +
      `the ceiling sends the same body over ${FORWARD_IN_FLIGHT} keep-alive connections. ` +
      'Server CPU = the target (ceiling) or the worker (forwarded); the inbox and Redis count as other.',
  );
  out('');
  out(formatTable(forwardRows, FORWARD_REPORT));
  out('');
  for (const line of formatErrors([direct, forwarded])) out(line);
  out(`worker log lines at warn or above: ${worker.lineCount()}`);
  out(
    `forwarded: ${forwarded.summary.count} captures, all taken ${Math.round(forwarded.capturedMs)} ms after ` +
      `the first was sent, all received by the target after ${Math.round(forwarded.deliveredMs)} ms: ` +
      `${(ratioOf(forwardRow) ?? Number.NaN).toFixed(2)} of direct delivery`,
  );
  out('');
  out(formatMarkdown(rows, { ...REPORT, date, machine }));
  out('');
  out(`| capture → SSE | p50 ${sse.p50Ms.toFixed(2)} ms | p99 ${sse.p99Ms.toFixed(2)} ms |`);
  out('');
  out(formatMarkdown(forwardRows, { ...FORWARD_REPORT, date, machine }));
}

await runBench(main);
