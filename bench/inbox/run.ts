// `npm run --workspace @portcullis/bench inbox`: captures/s through a receive URL (the inbox as its own
// process, on Redis) next to a bare fastify POST route measured in the same run, and capture-to-SSE latency
// seen by one subscriber in this process. Prints figures; asserts nothing.
import { startRedis } from '@portcullis/testing';
import { readBenchSettings } from '../common/bench-settings.js';
import { spawnTsx } from '../common/child-process.js';
import { createHttpLoad } from '../common/http-load.js';
import { describeMachine, today } from '../common/machine.js';
import { formatErrors, measure } from '../common/measure.js';
import { distinctFreePorts } from '../common/ports.js';
import { spawnPortsChild } from '../common/ports-child.js';
import { formatMarkdown, formatTable, ratioOf, type Row } from '../common/report.js';
import { runBench, type OnCleanup } from '../common/run-bench.js';
import { waitForHttpOk } from '../common/wait-for-http.js';
import { measureSseLatency } from './sse-latency.js';

const WARMUP_MS = 1000;
const CONCURRENCY = 64;
const READY_TIMEOUT_MS = 30_000;
/** The goal: at least this share of bare fastify's requests/s. */
const GOAL_RATIO = 0.5;
const SSE_CAPTURES = 500;
const REPORT = { rateLabel: 'captures/s' };
const BODY = Buffer.from(JSON.stringify({ event: 'order.created', id: 42, amount: '9.99' }));
const isCaptured = (body: string): string | undefined =>
  body.startsWith('{"ok":true') ? undefined : `unexpected body ${body.slice(0, 60)}`;

const out = (text: string): boolean => process.stdout.write(`${text}\n`);

async function main(onCleanup: OnCleanup): Promise<void> {
  const settings = readBenchSettings(process.env);
  const redis = await startRedis();
  onCleanup(() => redis.stop());
  const ceiling = await spawnPortsChild(
    { name: 'bare fastify', script: 'bench/inbox/ceiling-server.ts' },
    ['port'],
    onCleanup,
  );
  const [port] = (await distinctFreePorts(1)) as [number];
  const inbox = spawnTsx({
    name: 'inbox',
    script: 'services/inbox/src/main.ts',
    env: {
      INBOX_HOST: '127.0.0.1',
      INBOX_PORT: String(port),
      REDIS_URL: `redis://${redis.address}`,
      // enough for the whole run: the count trim keeps the stream small
      INBOX_RETENTION_MAX_REQUESTS: '1000',
      LOG_LEVEL: 'warn',
    },
  });
  onCleanup(() => inbox.stop());
  const baseUrl = `http://127.0.0.1:${port}`;
  await waitForHttpOk(`${baseUrl}/healthz`, inbox, READY_TIMEOUT_MS);
  const created = await fetch(`${baseUrl}/api/endpoints`, { method: 'POST' });
  const endpoint = (await created.json()) as { id: string; token: string };

  const watched = [ceiling.child, inbox];
  const o = { warmupMs: WARMUP_MS, durationMs: settings.durationMs, concurrency: CONCURRENCY, watched };
  const load = (p: number, path: string) =>
    createHttpLoad({
      port: p,
      method: 'POST',
      path,
      headers: { 'content-type': 'application/json' },
      bodies: [BODY],
      check: isCaptured,
      maxSockets: CONCURRENCY,
    });
  const top = await measure('bare fastify POST', load(ceiling.ports.port, '/api/hook/x'), {
    ...o,
    servers: [ceiling.child],
  });
  const got = await measure('inbox capture (Redis)', load(port, `/api/hook/${endpoint.id}`), {
    ...o,
    servers: [inbox],
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

  const ratio = ratioOf(row) ?? Number.NaN;
  const date = today();
  const machine = describeMachine();
  out('');
  out(`${date}, ${machine}`);
  out(
    `${CONCURRENCY} requests in flight over keep-alive connections, ${WARMUP_MS} ms warm-up, ` +
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
  out(formatMarkdown(rows, { ...REPORT, date, machine }));
  out('');
  out(`| capture → SSE | p50 ${sse.p50Ms.toFixed(2)} ms | p99 ${sse.p99Ms.toFixed(2)} ms |`);
}

await runBench(main);
